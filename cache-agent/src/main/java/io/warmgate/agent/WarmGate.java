package io.warmgate.agent;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.github.benmanes.caffeine.cache.Ticker;
import io.github.resilience4j.circuitbreaker.CircuitBreakerConfig;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.warmgate.agent.fleet.FleetServices;
import io.warmgate.agent.hot.HotKeys;
import io.warmgate.agent.l1.L1Cache;
import io.warmgate.agent.l2.KeySpace;
import io.warmgate.agent.l2.L2Store;
import io.warmgate.valkey.ValkeyEndpoint;
import io.warmgate.agent.schema.SchemaHash;
import io.warmgate.agent.stats.WrittenKeys;
import io.warmgate.contract.KeySpaceVersions;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.time.ZoneOffset;
import java.util.Map;
import java.util.Objects;
import java.util.UUID;
import java.util.concurrent.Executor;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.ForkJoinWorkerThread;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.UnaryOperator;

/**
 * Builds a {@link TieredCache}: the entry point of the agent.
 *
 * <pre>{@code
 * TieredCache<Product> products = WarmGate.newBuilder(Product.class, origin)
 *     .cacheName("products")
 *     .valkeyUri("redis://valkey:6379")
 *     .build();
 * }</pre>
 * or, in a pod configured by the warmgate operator,
 * {@code WarmGate.fromEnvironment(Product.class, origin).build()}. The origin is any
 * {@link Origin}; {@code warmgate-spanner-origin} provides a batched Cloud Spanner one.
 *
 * <p>Defaults: L1 TTL 60 s and 100 000 entries, L2 TTL 4 min, negative entries with the same TTLs,
 * refresh-ahead 60 s, lock TTL 5 s, fill wait the origin's {@linkplain Origin#timeout timeout}, L2 budget 20 ms, max staleness 5 min,
 * stale-if-error 5 min, origin breaker wait 5 s, values up to 512 KiB in L2, ids up to 512 bytes, no L2 unless
 * {@link #valkeyUri} or {@link #valkey} is set. Setters validate their argument at once ({@link NullPointerException}, {@link IllegalArgumentException} naming the
 * setting); {@link #build()} checks the combination. A builder is not thread-safe.
 *
 * @param <V> the value type
 */
public final class WarmGate<V> {

  /** Threads the default completion pool may add while its threads block in lookups. */
  static final int MAX_SPARE_COMPLETION_THREADS = 64;

  /** Origin loads the default loader pool lets wait for a thread; see {@link #loaderQueue}. */
  public static final int DEFAULT_LOADER_QUEUE = 1_000;

  /**
   * An origin call that lasts longer than this share of the origin's timeout counts as slow, and
   * slow calls open the origin breaker as failed ones do: an origin that answers that late is
   * saturated, and more calls would only keep it so.
   */
  static final double SLOW_CALL_SHARE_OF_TIMEOUT = 0.8;

  private final Class<V> type;
  private final Origin<V> origin;
  private String cacheName;
  private ValkeyEndpoint valkey;
  private Duration l1Ttl = WarmGateConfig.DEFAULT_L1_TTL;
  private long l1MaxSize = WarmGateConfig.DEFAULT_L1_MAX_SIZE;
  private Duration l2Ttl = WarmGateConfig.DEFAULT_L2_TTL;
  private Duration negativeTtl;
  private Duration refreshAhead = WarmGateConfig.DEFAULT_REFRESH_AHEAD;
  private Duration lockTtl = WarmGateConfig.DEFAULT_LOCK_TTL;
  /** Null: the origin's timeout. */
  private Duration fillWait;
  private Duration l2Timeout = WarmGateConfig.DEFAULT_L2_TIMEOUT;
  private Duration maxStaleness = WarmGateConfig.DEFAULT_MAX_STALENESS;
  private Duration staleIfError = WarmGateConfig.DEFAULT_STALE_IF_ERROR;
  private long maxValueBytes = WarmGateConfig.DEFAULT_MAX_VALUE_BYTES;
  private int maxIdBytes = TieredCache.DEFAULT_MAX_ID_BYTES;
  private int hotSamplePeriod = HotKeys.DEFAULT_SAMPLE_PERIOD;
  private Duration l2BreakerWait = Duration.ofSeconds(5);
  private Duration originBreakerWait = WarmGateConfig.DEFAULT_ORIGIN_BREAKER_WAIT;
  private String keySpaceVersion;
  private String podName;
  private String podNamespace;
  private String podTemplateHash;
  private boolean fleetServices;
  private UnaryOperator<FleetServices.Builder> fleetSettings = UnaryOperator.identity();
  private InstantSource clock = InstantSource.system();
  private MeterRegistry meterRegistry;
  private Executor executor;
  private int loaderQueue = DEFAULT_LOADER_QUEUE;
  private Executor completionExecutor;
  private ObjectMapper objectMapper;

  private WarmGate(Class<V> type, Origin<V> origin) {
    this.type = Objects.requireNonNull(type, "type");
    this.origin = Objects.requireNonNull(origin, "origin");
  }

  /** Returns a builder with the defaults for values of {@code type} loaded from {@code origin}. */
  public static <V> WarmGate<V> newBuilder(Class<V> type, Origin<V> origin) {
    return new WarmGate<>(type, origin);
  }

  /**
   * Returns a builder configured from the {@code WARMGATE_*} environment variables (see
   * {@link WarmGateConfig}); further settings such as {@link #meterRegistry} can still be made.
   *
   * @throws IllegalArgumentException naming the variable if one is missing or malformed
   */
  public static <V> WarmGate<V> fromEnvironment(Class<V> type, Origin<V> origin) {
    return fromConfig(WarmGateConfig.fromEnvironment(), type, origin);
  }

  /** Returns a builder configured from {@code config}; see {@link #fromEnvironment}. */
  public static <V> WarmGate<V> fromConfig(WarmGateConfig config, Class<V> type, Origin<V> origin) {
    WarmGate<V> b = new WarmGate<>(type, origin)
        .cacheName(config.cacheName())
        .l1Ttl(config.l1Ttl())
        .l1MaximumSize(config.l1MaxSize())
        .l2Ttl(config.l2Ttl())
        .refreshAhead(config.refreshAhead())
        .lockTtl(config.lockTtl())
        .l2Timeout(config.l2Timeout())
        .maxStaleness(config.maxStaleness())
        .staleIfError(config.staleIfError())
        .maxValueBytes(config.maxValueBytes())
        .maxIdBytes(config.maxIdBytes())
        .hotSamplePeriod(config.hotSamplePeriod())
        .originBreakerWait(config.originBreakerWait());
    config.negativeTtl().ifPresent(b::negativeTtl);
    config.fillWait().ifPresent(b::fillWait);
    config.podName().ifPresent(b::podName);
    config.keySpaceVersion().ifPresent(b::keySpaceVersion);
    config.valkeyEndpoint().ifPresent(endpoint -> {
      b.valkey = endpoint;
      b.fleetServices = true;
    });
    b.podNamespace = config.podNamespace().orElse(null);
    b.podTemplateHash = config.podTemplateHash().orElse(null);
    return b;
  }

  /** Sets the cache name, the {@code <cache>} of L2 keys: letters, digits, '-', '_', '.'. Required. */
  public WarmGate<V> cacheName(String cacheName) {
    this.cacheName = KeySpace.requireValidCacheName(cacheName);
    return this;
  }

  /**
   * Enables L2 on the standalone Valkey/Redis server at {@code uri}, e.g.
   * {@code redis://host:6379} or {@code rediss://user:password@host:6380} (TLS, trusting the JDK's
   * CAs); {@link #valkey} takes a cluster, a CA of your own and replica reads.
   */
  public WarmGate<V> valkeyUri(String uri) {
    Objects.requireNonNull(uri, "uri");
    try {
      this.valkey = ValkeyEndpoint.standalone(uri);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("valkeyUri '" + uri + "' is invalid: expected "
          + "redis://host:port or rediss://[user:password@]host:port", e);
    }
    return this;
  }

  /**
   * Enables L2 on {@code endpoint}: a standalone server or a Valkey cluster, for example
   * {@code ValkeyEndpoint.cluster("rediss://10.0.0.3:6379").withTrustedCertificates(caFile)}.
   */
  public WarmGate<V> valkey(ValkeyEndpoint endpoint) {
    this.valkey = Objects.requireNonNull(endpoint, "endpoint");
    return this;
  }

  /** Sets the L1 time to live (default 60 s). */
  public WarmGate<V> l1Ttl(Duration ttl) {
    this.l1Ttl = positive("l1Ttl", ttl);
    return this;
  }

  /** Sets the maximum number of L1 entries (default 100 000). */
  public WarmGate<V> l1MaximumSize(long size) {
    if (size <= 0) {
      throw new IllegalArgumentException("l1MaximumSize must be positive: " + size);
    }
    this.l1MaxSize = size;
    return this;
  }

  /** Sets the L2 time to live (default 4 min). */
  public WarmGate<V> l2Ttl(Duration ttl) {
    this.l2Ttl = positive("l2Ttl", ttl);
    return this;
  }

  /** Sets the TTL of not-found entries in both tiers (default: each tier's own TTL). */
  public WarmGate<V> negativeTtl(Duration ttl) {
    this.negativeTtl = positive("negativeTtl", ttl);
    return this;
  }

  /** Refreshes an L2 entry in the background once it has this little TTL left (default 60 s; 0 = never). */
  public WarmGate<V> refreshAhead(Duration refreshAhead) {
    this.refreshAhead = notNegative("refreshAhead", refreshAhead);
    return this;
  }

  /**
   * Sets the expiry of the cross-pod refresh lock and of the fill lease (default 5 s). The holder
   * renews them every third of it while its origin call runs (for at most the origin's
   * {@linkplain Origin#timeout timeout}), so it bounds not a load but how soon other pods notice
   * a holder that died: its leases lapse within one TTL.
   */
  public WarmGate<V> lockTtl(Duration ttl) {
    this.lockTtl = positive("lockTtl", ttl);
    return this;
  }

  /**
   * Sets the longest a lookup that misses L2 may wait for another pod's origin read of the same
   * id, instead of reading the origin itself (default: the origin's {@linkplain Origin#timeout
   * timeout}, so a waiter never waits longer than its own read could take; 0 = never wait and
   * take no fill lease, every pod that misses reads the origin).
   *
   * <p>On an L2 miss the pod tries a per-id lease ({@code SET {<value key>}:fill NX}, in the
   * value's cluster slot, expiring after {@link #lockTtl}); the winner loads from the origin,
   * keeping the lease alive while its call runs, writes L2 and releases it. The others poll L2
   * and serve the value once it is there, however slow the origin: they wait on the holder's
   * liveness, not on a guess of its speed. If the holder fails (its lease is released without a
   * value) or dies (its lease lapses within one {@link #lockTtl}), one waiter takes the lease over
   * and reads, the others wait on it. Only a holder still reading after this wait is given up on.
   * No lookup waits while L2 is failing or its circuit breaker is not closed.
   */
  public WarmGate<V> fillWait(Duration wait) {
    this.fillWait = notNegative("fillWait", wait);
    return this;
  }

  /** Sets the budget of one L2 call before falling back to the origin (default 20 ms). */
  public WarmGate<V> l2Timeout(Duration timeout) {
    this.l2Timeout = positive("l2Timeout", timeout);
    return this;
  }

  /** Never returns a value that left the origin longer ago than this (default 5 min). */
  public WarmGate<V> maxStaleness(Duration maxStaleness) {
    this.maxStaleness = positive("maxStaleness", maxStaleness);
    return this;
  }

  /** When the origin fails, serves a held value younger than this (default 5 min; 0 = never). */
  public WarmGate<V> staleIfError(Duration staleIfError) {
    this.staleIfError = notNegative("staleIfError", staleIfError);
    return this;
  }

  /** Does not write encoded values larger than this to L2 (default 512 KiB). */
  public WarmGate<V> maxValueBytes(long bytes) {
    if (bytes <= 0) {
      throw new IllegalArgumentException("maxValueBytes must be positive: " + bytes);
    }
    this.maxValueBytes = bytes;
    return this;
  }

  /**
   * Refuses ids whose UTF-8 form is longer than this (default
   * {@value TieredCache#DEFAULT_MAX_ID_BYTES}, at most {@value TieredCache#MAX_ID_BYTES_LIMIT}).
   * It bounds what one lookup of an unknown id writes to L2: see {@link TieredCache}.
   */
  public WarmGate<V> maxIdBytes(int bytes) {
    if (bytes < 1 || bytes > TieredCache.MAX_ID_BYTES_LIMIT) {
      throw new IllegalArgumentException("maxIdBytes must be from 1 to "
          + TieredCache.MAX_ID_BYTES_LIMIT + ": " + bytes);
    }
    this.maxIdBytes = bytes;
    return this;
  }

  /**
   * Samples one lookup in {@code period} into the fleet's hot set (default
   * {@value HotKeys#DEFAULT_SAMPLE_PERIOD}): a power of two, 1 samples every lookup. Lower it for
   * a service with few lookups per second, whose hot set would otherwise take minutes to learn.
   */
  public WarmGate<V> hotSamplePeriod(int period) {
    if (period < 1 || period > WarmGateConfig.MAX_HOT_SAMPLE_PERIOD || Integer.bitCount(period) != 1) {
      throw new IllegalArgumentException("hotSamplePeriod must be a power of two from 1 to "
          + WarmGateConfig.MAX_HOT_SAMPLE_PERIOD + ": " + period);
    }
    this.hotSamplePeriod = period;
    return this;
  }

  /** Sets how long L2 is skipped after its circuit breaker opens before it is probed (default 5 s). */
  public WarmGate<V> l2BreakerWait(Duration wait) {
    this.l2BreakerWait = positive("l2BreakerWait", wait);
    return this;
  }

  /**
   * Sets how long the origin is not called after its circuit breaker opens before it is probed
   * (default 5 s). Meanwhile held values younger than {@link #staleIfError} are served and other
   * ids fail at once.
   */
  public WarmGate<V> originBreakerWait(Duration wait) {
    this.originBreakerWait = positive("originBreakerWait", wait);
    return this;
  }

  /**
   * Moves the cache to a new L2 key space without a change of the value type (default: none, the
   * type's own hash): the version enters the schema hash, beside any
   * {@link KeySpaceVersion} on the type. For when the meaning of cached
   * values changes (a unit, how a field is filled) and old entries must not be served; the
   * operator's gate then treats the release as a schema change.
   *
   * @throws IllegalArgumentException if it is not {@value KeySpaceVersions#RULE}
   */
  public WarmGate<V> keySpaceVersion(String version) {
    Objects.requireNonNull(version, "version");
    if (!KeySpaceVersions.isValid(version)) {
      throw new IllegalArgumentException("keySpaceVersion '" + version + "' is invalid: expected "
          + KeySpaceVersions.RULE);
    }
    this.keySpaceVersion = version;
    return this;
  }

  /** Names this pod in refresh-lock tokens (default: a random id). */
  public WarmGate<V> podName(String podName) {
    this.podName = Objects.requireNonNull(podName, "podName");
    return this;
  }

  /**
   * Runs the fleet services with the cache (default: on for {@link #fromEnvironment} and
   * {@link #fromConfig} when Valkey is configured, off otherwise): the agent-registry heartbeat,
   * the per-namespace stats and hot-key sampling that the operator's rollout gate reads, and the
   * preload worker that fills this schema hash's key space when a warm job is opened for it (see
   * {@link io.warmgate.agent.fleet.FleetServices} and {@code docs/valkey-layout.md}). Needs
   * {@link #valkeyUri} or {@link #valkey}.
   */
  public WarmGate<V> fleetServices(boolean enabled) {
    this.fleetServices = enabled;
    return this;
  }

  /**
   * Turns the fleet services on and adjusts their settings after the builder's own (hot-key
   * tracker, flush and poll intervals): for a host that runs several caches on one clock scale,
   * such as a benchmark that compresses time.
   */
  public WarmGate<V> fleetServices(UnaryOperator<FleetServices.Builder> settings) {
    this.fleetSettings = Objects.requireNonNull(settings, "settings");
    this.fleetServices = true;
    return this;
  }

  /** Sets the pod's namespace published in the agent registry (default: WARMGATE_POD_NAMESPACE). */
  public WarmGate<V> podNamespace(String namespace) {
    this.podNamespace = namespace;
    return this;
  }

  /**
   * Sets the pod's {@code rollouts-pod-template-hash} published in the agent registry, by which
   * the operator's gate tells canary agents from stable ones (default: WARMGATE_POD_TEMPLATE_HASH).
   */
  public WarmGate<V> podTemplateHash(String hash) {
    this.podTemplateHash = hash;
    return this;
  }

  /** Sets the time source of every TTL decision (default: the system clock); for tests. */
  public WarmGate<V> clock(InstantSource clock) {
    this.clock = Objects.requireNonNull(clock, "clock");
    return this;
  }

  /** Registers the cache's meters there (default: a private {@code SimpleMeterRegistry}). */
  public WarmGate<V> meterRegistry(MeterRegistry registry) {
    this.meterRegistry = Objects.requireNonNull(registry, "registry");
    return this;
  }

  /**
   * Runs origin loads and refreshes there (default: a pool of daemon threads owned and closed by
   * the cache). Its parallelism bounds concurrent origin calls.
   */
  public WarmGate<V> executor(Executor executor) {
    this.executor = Objects.requireNonNull(executor, "executor");
    return this;
  }

  /**
   * How many origin loads (one per batch of ids) the default loader pool lets wait for a thread
   * (default {@value #DEFAULT_LOADER_QUEUE}). An origin that answers slowly fills it; past it a
   * lookup that needs the origin fails at once with an {@link IllegalStateException} saying so, where
   * an unbounded queue would hold every caller's batch until the heap ran out. Not used with
   * {@link #executor}, whose own queue bounds it.
   */
  public WarmGate<V> loaderQueue(int loads) {
    if (loads < 1) {
      throw new IllegalArgumentException("loaderQueue must be at least 1, got " + loads
          + ": the number of origin loads that may wait for a loader thread, such as "
          + DEFAULT_LOADER_QUEUE);
    }
    this.loaderQueue = loads;
    return this;
  }

  /**
   * Decodes L2 replies and completes the futures of {@link TieredCache#getAsync} and
   * {@link TieredCache#getAllAsync} there, so that neither happens on the L2 client's I/O threads
   * (default: a fork-join pool of daemon threads, one per processor, owned and closed by the
   * cache). Callbacks on those futures may run there; give an executor with spare threads if
   * they block, and one that does not reject tasks (a rejected L2 reply counts as an L2 failure).
   */
  public WarmGate<V> completionExecutor(Executor executor) {
    this.completionExecutor = Objects.requireNonNull(executor, "executor");
    return this;
  }

  /**
   * Encodes L2 payloads with {@code mapper} (default: Smile with java.time support). The mapper's
   * view of the value type determines the schema hash.
   */
  public WarmGate<V> objectMapper(ObjectMapper mapper) {
    this.objectMapper = Objects.requireNonNull(mapper, "mapper");
    return this;
  }

  /**
   * Builds the cache and, if L2 is configured, connects to it (waiting at most 3 s, the connect
   * timeout plus a margin; an unreachable L2 is retried in the background and does not fail the
   * build: lookups use the origin meanwhile).
   *
   * @throws IllegalStateException if no cache name was set or settings contradict each other
   * @throws IllegalArgumentException if Jackson cannot describe the value type, or its
   *     {@link KeySpaceVersion} is malformed
   */
  public TieredCache<V> build() {
    if (cacheName == null) {
      throw new IllegalStateException("cacheName is not set: call cacheName(\"deals\") or set "
          + WarmGateConfig.CACHE_NAME);
    }
    if (refreshAhead.compareTo(l2Ttl) >= 0) {
      throw new IllegalStateException("refreshAhead (" + refreshAhead + ") must be shorter than "
          + "l2Ttl (" + l2Ttl + "), or every L2 hit would trigger a refresh");
    }
    ObjectMapper mapper = objectMapper != null ? objectMapper : ValueCodec.defaultMapper();
    KeySpace keys = new KeySpace(cacheName, schemaHash(type, mapper, keySpaceVersion));
    Ticker ticker = clock.equals(InstantSource.system()) ? Ticker.systemTicker() : () -> nanos(clock.instant());
    Duration negativeL1 = negativeTtl != null ? negativeTtl : l1Ttl;

    DefaultTieredCache.Settings<V> s = new DefaultTieredCache.Settings<>();
    s.keys = keys;
    s.codec = new ValueCodec<>(type, mapper);
    s.clock = clock;
    MeterRegistry registry = meterRegistry != null ? meterRegistry : new SimpleMeterRegistry();
    s.metrics = new CacheMetrics(registry, cacheName);
    s.origin = countingNotFound(origin, s.metrics);
    Duration timeout = originTimeout(origin);
    s.originBreaker = new OriginBreaker(originBreakerConfig(timeout), clock);
    s.metrics.originBreakerState(s.originBreaker::state);
    s.l1 = new L1Cache<>(l1MaxSize, l1Ttl, negativeL1, maxStaleness, staleIfError, clock, ticker);
    s.l2Ttl = l2Ttl;
    s.negativeL2Ttl = negativeTtl != null ? negativeTtl : l2Ttl;
    s.refreshAhead = refreshAhead;
    s.lockTtl = lockTtl;
    s.originTimeout = timeout;
    s.fillWait = fillWait != null ? fillWait : s.originTimeout;
    s.maxStaleness = maxStaleness;
    s.staleIfError = staleIfError;
    s.maxValueBytes = maxValueBytes;
    s.maxIdBytes = maxIdBytes;
    s.podName = podName != null ? podName : "pod-" + UUID.randomUUID();
    if (executor != null) {
      s.executor = executor;
    } else {
      ThreadPoolExecutor pool = loaderPool(cacheName, loaderQueue);
      s.executor = pool;
      s.ownedExecutor = pool;
    }
    if (completionExecutor != null) {
      s.completions = completionExecutor;
    } else {
      ForkJoinPool pool = completionPool(cacheName);
      s.completions = pool;
      s.ownedCompletions = pool;
    }
    if (valkey != null) {
      CacheMetrics metrics = s.metrics;
      s.l2 = L2Store.connect(valkey, l2Timeout, breakerConfig(), new L2Store.Listener() {
        @Override
        public void failed(Throwable cause, boolean timeout) {
          (timeout ? metrics.l2Timeouts : metrics.l2Failures).increment();
        }

        @Override
        public void skipped() {
          metrics.l2Skipped.increment();
        }
      }, s.completions, L2Store.CONNECT_TIMEOUT.plusSeconds(1));
      metrics.breakerState(s.l2::breakerState);
    }
    if (!fleetServices) {
      return new DefaultTieredCache<>(s);
    }
    if (valkey == null) {
      throw new IllegalStateException("fleetServices(true) needs Valkey: call valkeyUri(...) or "
          + "valkey(...), or set " + WarmGateConfig.VALKEY_ADDRESSES);
    }
    WrittenKeys written = new WrittenKeys();
    s.writtenIds = written::add;
    FleetServices.Builder fleet = FleetServices.newBuilder()
        .valkey(valkey)
        .podName(s.podName)
        .podNamespace(podNamespace)
        .podTemplateHash(podTemplateHash)
        .l2Ttl(l2Ttl)
        .meterRegistry(registry)
        .writtenKeys(written)
        .hotKeys(new HotKeys(hotSamplePeriod, HotKeys.DEFAULT_BUFFER_SIZE, HotKeys.DEFAULT_CAPACITY,
            HotKeys.DEFAULT_HALF_LIFE))
        .clock(clock);
    DefaultTieredCache<V> cache = new DefaultTieredCache<>(s);
    FleetServices services = fleetSettings.apply(fleet.localTier(cache).lockTtl(lockTtl)
            .loadBound(s.originTimeout))
        .start(new WarmableTieredCache(cache));
    return new FleetCache<>(cache, services.hotKeys(), services::invalidate, services::close);
  }

  private static Duration originTimeout(Origin<?> origin) {
    Duration timeout = origin.timeout();
    if (timeout == null || timeout.isNegative() || timeout.isZero()) {
      throw new IllegalArgumentException("the origin's timeout() must be positive, got " + timeout
          + " from " + origin + ": return the deadline of one loadAll call, such as "
          + "Duration.ofSeconds(5)");
    }
    return timeout;
  }

  /** Counts the ids the origin answers without a value in {@code warmgate.origin.notfound}. */
  private static <V> Origin<V> countingNotFound(Origin<V> origin, CacheMetrics metrics) {
    return ids -> {
      Map<String, V> loaded = origin.loadAll(ids);
      if (loaded != null) {
        int missing = 0;
        for (String id : ids) {
          if (loaded.get(id) == null) {
            missing++;
          }
        }
        if (missing > 0) {
          metrics.originNotFound.increment(missing);
        }
      }
      return loaded;
    };
  }

  private CircuitBreakerConfig breakerConfig() {
    return CircuitBreakerConfig.custom()
        .slidingWindowType(CircuitBreakerConfig.SlidingWindowType.COUNT_BASED)
        .slidingWindowSize(20)
        .minimumNumberOfCalls(10)
        .failureRateThreshold(50)
        .waitDurationInOpenState(l2BreakerWait)
        .permittedNumberOfCallsInHalfOpenState(3)
        .clock(clock.withZone(ZoneOffset.UTC))
        .build();
  }

  /** Origin calls are fewer and slower than L2 commands, hence a shorter window and fewer probes. */
  private CircuitBreakerConfig originBreakerConfig(Duration originTimeout) {
    return CircuitBreakerConfig.custom()
        .slidingWindowType(CircuitBreakerConfig.SlidingWindowType.COUNT_BASED)
        .slidingWindowSize(10)
        .minimumNumberOfCalls(5)
        .failureRateThreshold(50)
        .slowCallDurationThreshold(Duration.ofNanos(
            (long) (originTimeout.toNanos() * SLOW_CALL_SHARE_OF_TIMEOUT)))
        .slowCallRateThreshold(50)
        .waitDurationInOpenState(originBreakerWait)
        .permittedNumberOfCallsInHalfOpenState(2)
        .clock(clock.withZone(ZoneOffset.UTC))
        .build();
  }

  /** Threads of the default loader pool: origin calls block, so twice the processors, at least 4. */
  static int defaultLoaderThreads() {
    return Math.max(4, 2 * Runtime.getRuntime().availableProcessors());
  }

  private static ThreadPoolExecutor loaderPool(String cacheName, int queue) {
    AtomicInteger n = new AtomicInteger();
    int threads = defaultLoaderThreads();
    ThreadPoolExecutor pool = new ThreadPoolExecutor(threads, threads, 30, TimeUnit.SECONDS,
        new LinkedBlockingQueue<>(queue), r -> {
          Thread t = new Thread(r, "warmgate-" + cacheName + "-loader-" + n.incrementAndGet());
          t.setDaemon(true);
          return t;
        }, (task, full) -> {
          throw new LoaderQueueFull("its " + queue + " queued origin loads all wait for its "
              + threads + " loader threads, busy with origin calls (a slow or stalled origin); "
              + "the lookup fails at once rather than queue without bound. Raise "
              + "WarmGate.loaderQueue only if the origin can take the extra calls");
        });
    pool.allowCoreThreadTimeOut(true);
    return pool;
  }

  /**
   * Sized for decoding, which is CPU work: one thread per processor. A thread that blocks in a
   * lookup there (a callback calling {@code get}) is a managed block, for which the pool starts a
   * spare thread, up to {@value #MAX_SPARE_COMPLETION_THREADS} of them; beyond that it waits
   * without one. Threads start on demand and end after a minute idle.
   */
  private static ForkJoinPool completionPool(String cacheName) {
    AtomicInteger n = new AtomicInteger();
    int parallelism = Runtime.getRuntime().availableProcessors();
    return new ForkJoinPool(parallelism, pool -> {
      ForkJoinWorkerThread t = ForkJoinPool.defaultForkJoinWorkerThreadFactory.newThread(pool);
      t.setName("warmgate-" + cacheName + "-completion-" + n.incrementAndGet());
      t.setDaemon(true);
      return t;
    }, null, true, 0, parallelism + MAX_SPARE_COMPLETION_THREADS, 1, pool -> true,
        1, TimeUnit.MINUTES);
  }

  private static long nanos(Instant instant) {
    return instant.getEpochSecond() * 1_000_000_000L + instant.getNano();
  }

  private static Duration positive(String setting, Duration d) {
    Objects.requireNonNull(d, setting);
    if (d.isNegative() || d.isZero()) {
      throw new IllegalArgumentException(setting + " must be positive: " + d);
    }
    return d;
  }

  private static Duration notNegative(String setting, Duration d) {
    Objects.requireNonNull(d, setting);
    if (d.isNegative()) {
      throw new IllegalArgumentException(setting + " must not be negative: " + d);
    }
    return d;
  }

  /**
   * The schema hash of {@code type}: how {@code mapper} serializes it, its {@link KeySpaceVersion}
   * and the deployment's {@code keySpaceVersion} (null: none).
   */
  static String schemaHash(Class<?> type, ObjectMapper mapper, String keySpaceVersion) {
    KeySpaceVersion annotated = type.getAnnotation(KeySpaceVersion.class);
    return SchemaHash.of(type, mapper, annotated == null ? null : annotated.value(),
        keySpaceVersion);
  }
}
