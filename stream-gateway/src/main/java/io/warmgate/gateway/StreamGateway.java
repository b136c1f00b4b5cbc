package io.warmgate.gateway;

import io.lettuce.core.codec.StringCodec;
import io.lettuce.core.resource.ClientResources;
import io.lettuce.core.resource.DefaultClientResources;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.vertx.core.Vertx;
import io.vertx.core.VertxOptions;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerOptions;
import io.warmgate.valkey.ValkeyConnection;
import io.warmgate.gateway.auth.ClientAuth;
import io.warmgate.gateway.config.GatewayConfig;
import io.warmgate.gateway.http.GatewayRoutes;
import io.warmgate.gateway.http.PerUserHook;
import io.warmgate.gateway.metrics.GatewayMetrics;
import io.warmgate.gateway.stream.Coalescer;
import io.warmgate.gateway.stream.RunStore;
import io.warmgate.gateway.upstream.UpstreamClient;
import io.warmgate.gateway.validate.ResponseValidator;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;

/**
 * A running coalescing stream gateway: an HTTP server, its Valkey connections and its upstream
 * client, each owned by this instance (several may run in one JVM, each like its own pod).
 *
 * <pre>{@code
 * StreamGateway gateway = StreamGateway.builder(GatewayConfig.fromEnvironment()).start();
 * ...
 * gateway.close();
 * }</pre>
 */
public final class StreamGateway implements AutoCloseable {

  private static final AtomicInteger INSTANCES = new AtomicInteger();
  /** Bound of each Valkey command; a blocking read asks for at most a second. */
  private static final Duration COMMAND_TIMEOUT = Duration.ofSeconds(10);
  /** How often token files are read again: a rotated Secret is in force within this. */
  static final Duration TOKEN_RELOAD = Duration.ofSeconds(2);
  private static final org.slf4j.Logger log = org.slf4j.LoggerFactory.getLogger(StreamGateway.class);

  private final Vertx vertx;
  private final ClientResources resources;
  private final ValkeyConnection<String> valkey;
  private final ScheduledExecutorService scheduler;
  private final UpstreamClient upstream;
  private final Coalescer coalescer;
  private final GatewayMetrics metrics;
  private final HttpServer server;

  private StreamGateway(Builder builder) {
    GatewayConfig config = builder.config;
    int instance = INSTANCES.incrementAndGet();
    // Small pools: the work is I/O-bound, and a pod usually runs one gateway next to its app.
    vertx = Vertx.vertx(new VertxOptions().setEventLoopPoolSize(2).setWorkerPoolSize(2));
    resources = DefaultClientResources.builder().ioThreadPoolSize(2).computationThreadPoolSize(2).build();
    scheduler = Executors.newSingleThreadScheduledExecutor(r -> {
      Thread t = new Thread(r, "warmgate-gateway-" + instance + "-scheduler");
      t.setDaemon(true);
      return t;
    });
    try {
      valkey = connect(config);
      metrics = new GatewayMetrics(builder.meterRegistry);
      RunStore store = new RunStore(valkey.async(), config.lockTtl(), config.streamCap());
      ResponseValidator validator = builder.validator != null ? builder.validator
          : config.schemaDir().map(ResponseValidator::fromDirectory).orElse(ResponseValidator.none());
      upstream = new UpstreamClient(vertx, config);
      coalescer = new Coalescer(valkey, store, upstream, validator, metrics, scheduler,
          config.lockTtl(), config.streamCap(), config.resultTtl(), config.burstResultTtl(),
          config.podName(), config.maxKeys());
      ClientAuth auth = clientAuth(config);
      GatewayRoutes routes = new GatewayRoutes(vertx, coalescer, store, metrics, builder.hook,
          auth, config, builder.prometheus);
      HttpServerOptions options = new HttpServerOptions().setAcceptBacklog(4096)
          .setIdleTimeoutUnit(TimeUnit.MILLISECONDS)
          .setIdleTimeout((int) Math.min(Integer.MAX_VALUE, config.clientIdleTimeout().toMillis()));
      if (config.clientSendBuffer() > 0) {
        options.setSendBufferSize(config.clientSendBuffer());
      }
      server = vertx.createHttpServer(options)
          .requestHandler(routes)
          .listen(config.port())
          .await(30, TimeUnit.SECONDS);
      // Open streams write a comment when idle, so only connections without a stream time out.
      vertx.setPeriodic(Math.max(100, config.clientIdleTimeout().toMillis() / 3), id -> routes.keepAlive());
    } catch (Exception e) {
      kill();
      throw new IllegalStateException("cannot start the stream gateway (" + e.getMessage() + "); "
          + "check " + GatewayConfig.VALKEY_ADDRESSES + ", " + GatewayConfig.VALKEY_MODE + " and "
          + GatewayConfig.PORT, e);
    }
  }

  /** Starts building a gateway for {@code config}. */
  public static Builder builder(GatewayConfig config) {
    return new Builder(config);
  }

  /** The port the HTTP server listens on. */
  public int port() {
    return server.actualPort();
  }

  /** This instance's counters. */
  public GatewayMetrics metrics() {
    return metrics;
  }

  /** Upstream calls this instance runs now. */
  public int activeUpstreamCalls() {
    return coalescer.activeProducers();
  }

  /**
   * Stops like a crashed pod: connections and threads are closed at once, nothing is released in
   * Valkey (locks expire by themselves), clients see their connection drop.
   */
  public void kill() {
    if (coalescer != null) {
      coalescer.kill();
    }
    if (scheduler != null) {
      scheduler.shutdownNow();
    }
    vertx.close();
    if (valkey != null) {
      valkey.closeAsync();
    }
    resources.shutdown(0, 0, TimeUnit.MILLISECONDS);
  }

  /**
   * Stops serving (SIGTERM): this instance's upstream locks are given up so other pods take its
   * runs over at once, from the chunks already in Valkey; its clients' connections close and
   * they resume elsewhere with {@code Last-Event-ID}.
   */
  @Override
  public void close() {
    try {
      coalescer.close(Duration.ofSeconds(2));
      server.close().await(5, TimeUnit.SECONDS);
    } catch (java.util.concurrent.TimeoutException e) {
      // clients still connected are cut off by kill() below
    } finally {
      kill();
    }
  }

  private ClientAuth clientAuth(GatewayConfig config) {
    if (!config.authEnabled()) {
      log.warn("{}=none: every client that reaches the port may start upstream calls and set the "
          + "burst flag; keep that for a gateway behind something that authenticates its clients",
          GatewayConfig.AUTH);
      return ClientAuth.none();
    }
    ClientAuth auth = ClientAuth.tokens(config.streamTokens().orElseThrow(), config.burstTokens());
    if (config.streamTokens().flatMap(t -> t.path()).isPresent()
        || config.burstTokens().flatMap(t -> t.path()).isPresent()) {
      scheduler.scheduleWithFixedDelay(auth::reload, TOKEN_RELOAD.toMillis(), TOKEN_RELOAD.toMillis(),
          TimeUnit.MILLISECONDS);
    }
    return auth;
  }

  /** The shared connection: to the server, or to the cluster (every primary) through its seeds. */
  private ValkeyConnection<String> connect(GatewayConfig config) throws Exception {
    try {
      return ValkeyConnection.open(config.valkeyEndpoint(), StringCodec.UTF8, resources,
          COMMAND_TIMEOUT).get(30, TimeUnit.SECONDS);
    } catch (ExecutionException e) {
      throw e.getCause() instanceof Exception cause ? cause : e;
    }
  }

  /** Options beyond the environment. */
  public static final class Builder {
    private final GatewayConfig config;
    private MeterRegistry meterRegistry = new SimpleMeterRegistry();
    private PerUserHook hook = PerUserHook.IDENTITY;
    private ResponseValidator validator;
    private Supplier<String> prometheus;

    private Builder(GatewayConfig config) {
      this.config = Objects.requireNonNull(config, "config");
    }

    /** Registers the gateway's meters in {@code registry} (default: a private simple registry). */
    public Builder meterRegistry(MeterRegistry registry) {
      this.meterRegistry = Objects.requireNonNull(registry, "registry");
      return this;
    }

    /**
     * Serves {@code GET /metrics} with what {@code scrape} returns, such as a
     * {@code PrometheusMeterRegistry}'s {@code scrape()} (default: no such route).
     */
    public Builder prometheusScrape(Supplier<String> scrape) {
      this.prometheus = Objects.requireNonNull(scrape, "scrape");
      return this;
    }

    /** Adapts chunks per user after coalescing (default: unchanged). */
    public Builder perUserHook(PerUserHook hook) {
      this.hook = Objects.requireNonNull(hook, "hook");
      return this;
    }

    /** Validates completed responses with {@code validator} instead of the schema directory. */
    public Builder validator(ResponseValidator validator) {
      this.validator = Objects.requireNonNull(validator, "validator");
      return this;
    }

    /**
     * Starts the gateway.
     *
     * @throws IllegalStateException if Valkey is unreachable or the port is taken
     */
    public StreamGateway start() {
      return new StreamGateway(this);
    }
  }
}
