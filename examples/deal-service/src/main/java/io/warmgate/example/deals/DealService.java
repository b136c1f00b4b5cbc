package io.warmgate.example.deals;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.datatype.jsr310.JavaTimeModule;
import com.google.cloud.NoCredentials;
import com.google.cloud.spanner.DatabaseClient;
import com.google.cloud.spanner.DatabaseId;
import com.google.cloud.spanner.Spanner;
import com.google.cloud.spanner.SpannerOptions;
import com.sun.net.httpserver.HttpServer;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.warmgate.agent.TieredCache;
import io.warmgate.agent.WarmGate;
import io.warmgate.agent.WarmGateConfig;
import io.warmgate.agent.deal.SpannerDealOrigin;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The sample app: serves {@code GET /deals/{id}} through the warmgate cache agent, reading Deals
 * from Cloud Spanner. Configured entirely by environment variables (see the module README):
 * the agent's {@code WARMGATE_*}, plus {@code PORT}, {@code DEAL_SCHEMA_VERSION} and the
 * {@code SPANNER_*} coordinates.
 */
public final class DealService implements AutoCloseable {

  private static final Logger log = LoggerFactory.getLogger(DealService.class);

  private final Spanner spanner;
  private final TieredCache<?> cache;
  private final HttpServer server;
  private final ExecutorService handlers;
  private final DealSchema schema;

  private DealService(Spanner spanner, TieredCache<?> cache, HttpServer server,
      ExecutorService handlers, DealSchema schema) {
    this.spanner = spanner;
    this.cache = cache;
    this.server = server;
    this.handlers = handlers;
    this.schema = schema;
  }

  /**
   * Starts the service with the given environment.
   *
   * @throws IllegalArgumentException naming the variable when a setting is missing or malformed
   * @throws IOException if the HTTP port cannot be bound
   */
  public static DealService start(Map<String, String> env) throws IOException {
    DealSchema schema = DealSchema.parse(env.get(DealSchema.ENV));
    int port = parsePort(env.getOrDefault("PORT", "8080"));
    Spanner spanner = spannerOptions(env).getService();
    DatabaseId db = DatabaseId.of(
        env.getOrDefault("SPANNER_PROJECT", "warmgate-demo"),
        env.getOrDefault("SPANNER_INSTANCE", "demo"),
        env.getOrDefault("SPANNER_DATABASE", "deals"));
    DatabaseClient client = spanner.getDatabaseClient(db);
    PrometheusMeterRegistry metrics = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    TieredCache<?> cache;
    try {
      cache = buildCache(WarmGateConfig.from(env), schema, new SpannerDealOrigin(client), metrics);
    } catch (RuntimeException e) {
      spanner.close();
      throw e;
    }
    ObjectMapper json = new ObjectMapper().registerModule(new JavaTimeModule());
    HttpServer server = HttpServer.create(new InetSocketAddress(port), 256);
    ExecutorService handlers = Executors.newFixedThreadPool(32);
    server.setExecutor(handlers);
    server.createContext("/", new DealRoutes(cache, json, metrics, schema));
    server.start();
    log.info("deal-service listening on :{} (schema {} hash {}, cache '{}', database {})",
        server.getAddress().getPort(), schema.name().toLowerCase(), cache.schemaHash(), cache.name(), db);
    return new DealService(spanner, cache, server, handlers, schema);
  }

  private static <V> TieredCache<V> buildCache(WarmGateConfig config, DealSchema schema,
      SpannerDealOrigin deals, PrometheusMeterRegistry metrics) {
    @SuppressWarnings("unchecked")
    Class<V> type = (Class<V>) schema.type();
    return WarmGate.fromConfig(config, type, schema.<V>adapt(deals)).meterRegistry(metrics).build();
  }

  private static SpannerOptions spannerOptions(Map<String, String> env) {
    SpannerOptions.Builder options = SpannerOptions.newBuilder()
        .setProjectId(env.getOrDefault("SPANNER_PROJECT", "warmgate-demo"));
    String emulator = env.get("SPANNER_EMULATOR_HOST");
    if (emulator != null && !emulator.isBlank()) {
      options.setEmulatorHost(emulator).setCredentials(NoCredentials.getInstance());
    }
    return options.build();
  }

  private static int parsePort(String value) {
    try {
      int port = Integer.parseInt(value.trim());
      if (port >= 0 && port <= 65535) {
        return port;
      }
    } catch (NumberFormatException ignored) {
      // reported below
    }
    throw new IllegalArgumentException("PORT='" + value + "' is not a TCP port: use 0-65535 (0 picks a free one)");
  }

  /** The port the HTTP server is bound to. */
  public int port() {
    return server.getAddress().getPort();
  }

  /** The schema hash of the served type: the L2 key space this instance uses. */
  public String schemaHash() {
    return cache.schemaHash();
  }

  /** The served schema version. */
  public DealSchema schema() {
    return schema;
  }

  /** Stops serving, then closes the cache and the Spanner client. */
  @Override
  public void close() {
    server.stop(0);
    handlers.shutdownNow();
    cache.close();
    spanner.close();
  }

  /** Runs the service until the process is stopped. */
  public static void main(String[] args) throws IOException {
    DealService service;
    try {
      service = start(System.getenv());
    } catch (IllegalArgumentException | IllegalStateException e) {
      System.err.println("deal-service: " + e.getMessage());
      System.exit(2);
      return;
    }
    Runtime.getRuntime().addShutdownHook(new Thread(service::close, "deal-service-shutdown"));
  }
}
