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
import io.warmgate.example.deal.Deal;
import io.warmgate.example.deal.DealChanges;
import io.warmgate.example.deal.DealOrigin;
import io.warmgate.spanner.SpannerOrigin;
import io.warmgate.spanner.changes.ChangeStreamWatcher;
import java.io.IOException;
import java.net.BindException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The sample app: serves {@code GET /deals/{id}} through the warmgate cache agent, reading Deals
 * from Cloud Spanner. Configured entirely by environment variables (see the module README):
 * the agent's {@code WARMGATE_*}, plus {@code PORT}, {@code PORT_FILE}, {@code DEAL_SCHEMA_VERSION}
 * and the {@code SPANNER_*} coordinates. With {@code WARMGATE_CHANGE_STREAM} set (a CachePolicy's
 * {@code spec.changeStream}), it also runs a {@link ChangeStreamWatcher} over that stream with the
 * {@link DealChanges} mapping, so a changed deal is served fresh within seconds.
 */
public final class DealService implements AutoCloseable {

  /**
   * Environment variable naming a file the bound HTTP port is written to once the service serves;
   * with {@code PORT=0} it tells a supervisor which free port the service picked.
   */
  public static final String PORT_FILE = "PORT_FILE";

  private static final Logger log = LoggerFactory.getLogger(DealService.class);

  private final Spanner spanner;
  private final TieredCache<?> cache;
  private final ChangeStreamWatcher watcher;
  private final HttpServer server;
  private final ExecutorService handlers;
  private final DealSchema schema;

  private DealService(Spanner spanner, TieredCache<?> cache, ChangeStreamWatcher watcher,
      HttpServer server, ExecutorService handlers, DealSchema schema) {
    this.spanner = spanner;
    this.cache = cache;
    this.watcher = watcher;
    this.server = server;
    this.handlers = handlers;
    this.schema = schema;
  }

  /**
   * Starts the service with the given environment. The HTTP port is bound first, so a port that
   * cannot be bound fails the start before any connection to Valkey or Spanner exists. When
   * {@value #PORT_FILE} is set, the bound port is written to that file once the service serves.
   *
   * @throws IllegalArgumentException naming the variable when a setting is missing or malformed
   * @throws IOException naming the port when it cannot be bound, or the file when
   *     {@value #PORT_FILE} cannot be written
   */
  public static DealService start(Map<String, String> env) throws IOException {
    DealSchema schema = DealSchema.parse(env.get(DealSchema.ENV));
    int port = parsePort(env.getOrDefault("PORT", "8080"));
    Path portFile = portFile(env.get(PORT_FILE));
    WarmGateConfig config = WarmGateConfig.from(env);
    HttpServer server = bind(port);
    Spanner spanner = null;
    TieredCache<?> cache = null;
    ChangeStreamWatcher watcher = null;
    ExecutorService handlers = null;
    try {
      spanner = spannerOptions(env).getService();
      DatabaseId db = DatabaseId.of(
          env.getOrDefault("SPANNER_PROJECT", "warmgate-demo"),
          env.getOrDefault("SPANNER_INSTANCE", "demo"),
          env.getOrDefault("SPANNER_DATABASE", "deals"));
      DatabaseClient client = spanner.getDatabaseClient(db);
      PrometheusMeterRegistry metrics = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
      cache = buildCache(config, schema, DealOrigin.spanner(client), metrics);
      if (config.changeStream().isPresent()) {
        watcher = DealChanges.mapTables(
            ChangeStreamWatcher.builder(client, config.changeStream().get()), client)
            .cache(cache)
            .config(config)
            .start();
      }
      ObjectMapper json = new ObjectMapper().registerModule(new JavaTimeModule());
      handlers = Executors.newFixedThreadPool(32);
      server.setExecutor(handlers);
      server.createContext("/", new DealRoutes(cache, json, metrics, schema, config.podName().orElse("")));
      server.start();
      DealService service = new DealService(spanner, cache, watcher, server, handlers, schema);
      if (portFile != null) {
        writePort(portFile, service.port());
      }
      log.info("deal-service listening on :{} (schema {} hash {}, cache '{}', database {})",
          service.port(), schema.name().toLowerCase(), cache.schemaHash(), cache.name(), db);
      return service;
    } catch (IOException | RuntimeException e) {
      server.stop(0);
      if (handlers != null) {
        handlers.shutdownNow();
      }
      if (watcher != null) {
        watcher.close();
      }
      if (cache != null) {
        cache.close();
      }
      if (spanner != null) {
        spanner.close();
      }
      throw e;
    }
  }

  /** Binds the HTTP port; the server accepts requests once started. */
  private static HttpServer bind(int port) throws IOException {
    try {
      return HttpServer.create(new InetSocketAddress(port), 256);
    } catch (IOException e) {
      boolean inUse = e instanceof BindException && String.valueOf(e.getMessage()).contains("in use");
      throw new IOException("cannot serve HTTP on port " + port + ": " + e.getMessage()
          + (inUse ? " (another process holds it: stop that one, or set PORT to a free port or to 0)" : ""), e);
    }
  }

  private static Path portFile(String value) {
    return value == null || value.isBlank() ? null : Path.of(value.trim());
  }

  /** Writes the port as one line, atomically: a reader sees no file or the whole number. */
  private static void writePort(Path portFile, int port) throws IOException {
    Path tmp = portFile.resolveSibling(portFile.getFileName() + ".tmp");
    try {
      Files.writeString(tmp, port + "\n", StandardCharsets.US_ASCII);
      Files.move(tmp, portFile, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    } catch (IOException e) {
      throw new IOException(PORT_FILE + "=" + portFile + " cannot be written (" + e + "): point it into a"
          + " writable directory", e);
    }
  }

  private static <V> TieredCache<V> buildCache(WarmGateConfig config, DealSchema schema,
      SpannerOrigin<Deal> deals, PrometheusMeterRegistry metrics) {
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

  /** Stops serving, then closes the change stream watcher, the cache and the Spanner client. */
  @Override
  public void close() {
    server.stop(0);
    handlers.shutdownNow();
    if (watcher != null) {
      watcher.close();
    }
    cache.close();
    spanner.close();
  }

  /**
   * Runs the service until the process is stopped. A service that cannot start ends the process
   * with a message on stderr: exit code 2 for a bad setting, 1 for anything else (such as a port
   * that cannot be bound), even if threads of the clients it had started are still running.
   */
  public static void main(String[] args) {
    DealService service;
    try {
      service = start(System.getenv());
    } catch (IllegalArgumentException | IllegalStateException e) {
      exit(2, e.getMessage(), null);
      return;
    } catch (IOException e) {
      exit(1, e.getMessage(), null);
      return;
    } catch (RuntimeException e) {
      exit(1, e.getMessage() == null ? e.toString() : e.getMessage(), e);
      return;
    }
    Runtime.getRuntime().addShutdownHook(new Thread(service::close, "deal-service-shutdown"));
  }

  private static void exit(int code, String message, Throwable cause) {
    if (cause != null) {
      log.error("deal-service did not start", cause);
    }
    System.err.println("deal-service: " + message);
    System.err.flush();
    System.exit(code);
  }
}
