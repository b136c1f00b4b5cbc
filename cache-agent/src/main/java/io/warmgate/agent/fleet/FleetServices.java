package io.warmgate.agent.fleet;

import io.lettuce.core.RedisURI;
import io.lettuce.core.codec.StringCodec;
import io.lettuce.core.resource.ClientResources;
import io.micrometer.core.instrument.MeterRegistry;
import io.warmgate.agent.hot.HotKeys;
import io.warmgate.agent.invalidate.InvalidationListener;
import io.warmgate.agent.invalidate.Invalidator;
import io.warmgate.agent.invalidate.LocalTier;
import io.warmgate.agent.l2.KeySpace;
import io.warmgate.valkey.ValkeyConnection;
import io.warmgate.valkey.ValkeyEndpoint;
import io.warmgate.agent.preload.PreloadWorker;
import io.warmgate.agent.preload.WarmableCache;
import io.warmgate.agent.registry.AgentInfo;
import io.warmgate.agent.registry.AgentRegistry;
import io.warmgate.agent.stats.StatsFlusher;
import io.warmgate.agent.stats.WrittenKeys;
import java.io.IOException;
import java.io.InputStream;
import java.time.Duration;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Properties;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Attaches the fleet services to a cache: the {@link AgentRegistry} heartbeat, the
 * {@link StatsFlusher}, {@link HotKeys} flushing, the {@link PreloadWorker}, and invalidation
 * across pods ({@link #invalidate}, {@link InvalidationListener}), all writing the
 * keys of {@code docs/valkey-layout.md} over one Valkey connection of their own (on a cluster,
 * every key of a cache lives in the slot of its {@code {wg:<cache>}} tag, so each script runs on
 * that slot's primary).
 *
 * <p>{@code WarmGate} starts them: {@code WarmGate.fromEnvironment(...)} and
 * {@code fromConfig(...)} builders with a Valkey address, or any builder with
 * {@code fleetServices(true)}. The cache it returns records the ids looked up in
 * {@link #hotKeys()} and, on {@code close()}, stops the services ({@link #close()}: final flush,
 * lock released, registry entry removed) before closing the cache. {@link Builder} is the settings
 * hook of {@code WarmGate.fleetServices(settings)}:
 *
 * <pre>{@code
 * TieredCache<Deal> deals = WarmGate.fromEnvironment(Deal.class, origin)
 *     .fleetServices(fleet -> fleet.flushInterval(Duration.ofSeconds(1)))
 *     .build();
 * }</pre>
 *
 * <p>An unreachable Valkey never fails {@link Builder#start}: the services connect in the
 * background, retrying, and a failing service logs once and retries at its next interval while
 * the cache keeps serving.
 */
public final class FleetServices implements AutoCloseable {

  private static final Logger log = LoggerFactory.getLogger(FleetServices.class);
  /** Bound of each control command. */
  static final Duration COMMAND_TIMEOUT = Duration.ofSeconds(2);
  private static final long MAX_CONNECT_BACKOFF_MILLIS = 5_000;

  private final Builder settings;
  private final WarmableCache cache;
  private final KeySpace keys;
  private final HotKeys hotKeys;
  private final WrittenKeys writtenKeys;
  private final String pod;
  private final ScheduledExecutorService scheduler;
  private final ClientResources resources;
  private final List<ScheduledFuture<?>> tasks = new ArrayList<>();
  private final Object lock = new Object();
  private ValkeyConnection<String> connection;
  private AgentRegistry registry;
  private StatsFlusher stats;
  private PreloadWorker worker;
  private Invalidator invalidator;
  /** Ids awaiting their second pass → when their latest first pass began. */
  private final Map<String, Long> secondPass = new LinkedHashMap<>();
  /** Whether a second pass is scheduled; guarded by {@link #secondPass}. */
  private boolean secondPassScheduled;
  private InvalidationListener invalidations;
  private long connectBackoffMillis = 100;
  private boolean connectFailureLogged;
  private boolean closed;

  private FleetServices(Builder b, WarmableCache cache) {
    this.settings = b.copy(); // later changes to the builder do not reach running services
    this.cache = cache;
    this.keys = new KeySpace(cache.name(), cache.schemaHash());
    this.hotKeys = b.hotKeys != null ? b.hotKeys : new HotKeys();
    this.writtenKeys = b.writtenKeys != null ? b.writtenKeys : new WrittenKeys();
    this.pod = b.podName != null ? b.podName : "pod-" + UUID.randomUUID();
    ScheduledThreadPoolExecutor pool = new ScheduledThreadPoolExecutor(1, r -> {
      Thread t = new Thread(r, "warmgate-" + cache.name() + "-fleet");
      t.setDaemon(true);
      return t;
    });
    // On close, pending reconnect attempts and periodic runs are dropped, not waited for.
    pool.setExecuteExistingDelayedTasksAfterShutdownPolicy(false);
    pool.setContinueExistingPeriodicTasksAfterShutdownPolicy(false);
    pool.setRemoveOnCancelPolicy(true);
    this.scheduler = pool;
    // A few commands every few seconds: one I/O and one computation thread are plenty.
    this.resources = ValkeyConnection.resources(1);
  }

  /** Returns a builder; {@link Builder#valkeyUri} (or {@link Builder#valkey}) is required. */
  public static Builder newBuilder() {
    return new Builder();
  }

  /**
   * Returns the agent's version as published in the registry: the jar manifest's
   * {@code Implementation-Version}, else the version in the jar's Maven descriptor
   * ({@code META-INF/maven/io.warmgate/warmgate-cache-agent/pom.properties}), else
   * {@code "unknown"} (classes not packaged in a jar, as in the module's own tests).
   */
  public static String agentVersion() {
    String version = FleetServices.class.getPackage().getImplementationVersion();
    if (version != null) {
      return version;
    }
    try (InputStream in = FleetServices.class.getResourceAsStream(
        "/META-INF/maven/io.warmgate/warmgate-cache-agent/pom.properties")) {
      if (in != null) {
        Properties p = new Properties();
        p.load(in);
        version = p.getProperty("version");
      }
    } catch (IOException e) {
      // fall through
    }
    return version != null ? version : "unknown";
  }

  private void startConnecting() {
    scheduler.execute(this::connect);
  }

  private void connect() {
    synchronized (lock) {
      if (closed) {
        return;
      }
    }
    ValkeyConnection<String> c;
    // Control keys are read where they are written: replica reads are for lookups only.
    CompletableFuture<ValkeyConnection<String>> opening = ValkeyConnection.open(
        settings.valkey.withReadFrom(ValkeyEndpoint.ReadFrom.PRIMARY), StringCodec.UTF8,
        resources, COMMAND_TIMEOUT);
    try {
      c = opening.get(2 * COMMAND_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      opening.thenAccept(ValkeyConnection::closeAsync);
      Thread.currentThread().interrupt();
      return;
    } catch (ExecutionException | TimeoutException e) {
      opening.thenAccept(ValkeyConnection::closeAsync); // if it opens after all
      Throwable cause = e instanceof ExecutionException ? e.getCause() : e;
      if (!connectFailureLogged) {
        log.warn("cache '{}': fleet services cannot reach Valkey ({}) yet ({}); retrying",
            cache.name(), settings.valkey, cause.toString());
        connectFailureLogged = true;
      }
      connectBackoffMillis = Math.min(MAX_CONNECT_BACKOFF_MILLIS, connectBackoffMillis * 2);
      scheduleSafely(this::connect, connectBackoffMillis);
      return;
    }
    synchronized (lock) {
      if (closed) {
        c.close();
        return;
      }
      connection = c;
      long now = settings.clock.millis();
      registry = new AgentRegistry(c, keys, new AgentInfo(pod, settings.podNamespace,
          settings.podTemplateHash, cache.schemaHash(), settings.version, now, now), settings.clock,
          settings.l2Ttl);
      stats = new StatsFlusher(c, keys, settings.meterRegistry, writtenKeys, settings.l2Ttl,
          settings.clock, COMMAND_TIMEOUT);
      tasks.add(every(settings.heartbeatInterval, "registry heartbeat", registry::heartbeat, true));
      tasks.add(every(settings.flushInterval, "stats flush", stats::flush, false));
      tasks.add(every(settings.flushInterval, "hot-key flush",
          () -> hotKeys.flush(c, keys, settings.clock), false));
      invalidator = new Invalidator(c, keys, settings.clock, COMMAND_TIMEOUT);
      tasks.add(every(settings.heartbeatInterval, "live key spaces read",
          invalidator::observeRegistry, true));
      if (settings.localTier != null) {
        invalidations = new InvalidationListener(c, keys, settings.localTier, settings.clock,
            settings.meterRegistry);
      }
      if (settings.preload) {
        worker = new PreloadWorker(c, cache, pod, settings.clock, scheduler, settings.pollInterval,
            settings.l2Ttl).countIn(settings.meterRegistry);
        worker.start();
      }
    }
    log.info("cache '{}': fleet services started for pod {} (schema hash {}, template hash {})",
        cache.name(), pod, cache.schemaHash(), settings.podTemplateHash);
  }

  /** Schedules {@code task} at a fixed delay; its failures are logged once per failing streak. */
  private ScheduledFuture<?> every(Duration interval, String what, Runnable task, boolean now) {
    boolean[] failing = {false};
    return scheduler.scheduleWithFixedDelay(() -> {
      try {
        task.run();
        if (failing[0]) {
          log.info("cache '{}': {} works again", cache.name(), what);
          failing[0] = false;
        }
      } catch (RuntimeException e) {
        if (!failing[0]) {
          log.warn("cache '{}': {} failed, retrying every {}: {}", cache.name(), what, interval,
              e.toString());
          failing[0] = true;
        }
      }
    }, now ? 0 : interval.toMillis(), interval.toMillis(), TimeUnit.MILLISECONDS);
  }

  private void scheduleSafely(Runnable task, long delayMillis) {
    try {
      scheduler.schedule(task, delayMillis, TimeUnit.MILLISECONDS);
    } catch (RejectedExecutionException e) {
      // closed meanwhile
    }
  }

  /**
   * Invalidates {@code ids} in every live key space of the cache and tells every pod through the
   * invalidation stream ({@link Invalidator}), then, once a load that read the origin before the
   * change has ended or dropped its late answer ({@link Builder#loadBound}), deletes again what
   * such a load wrote back ({@link Invalidator#invalidateReadBefore}).
   *
   * @throws IllegalStateException if Valkey is not connected yet or did not complete it: call
   *     again
   */
  public void invalidate(Collection<String> ids) {
    Invalidator current;
    synchronized (lock) {
      if (closed) {
        throw new IllegalStateException("cache '" + cache.name() + "': fleet services are closed");
      }
      current = invalidator;
    }
    if (current == null) {
      throw new IllegalStateException("cache '" + cache.name() + "': not connected to Valkey ("
          + settings.valkey + ") yet, so other pods cannot be told: call invalidate again");
    }
    long firstPass = settings.clock.millis();
    current.invalidate(ids);
    boolean schedule;
    synchronized (secondPass) {
      for (String id : ids) {
        secondPass.merge(id, firstPass, Math::max);
      }
      schedule = !secondPassScheduled;
      secondPassScheduled = true;
    }
    if (schedule) {
      scheduleSafely(() -> runSecondPass(current), settings.secondPassDelay().toMillis());
    }
  }

  /**
   * The second pass of every collected invalidation whose first pass began at least
   * {@link Builder#secondPassDelay} ago ({@link Invalidator#invalidateReadBefore}), in one call
   * for a burst; an id invalidated again meanwhile waits for its latest first pass. Runs again
   * for the ones not due yet.
   */
  private void runSecondPass(Invalidator current) {
    long now = settings.clock.millis();
    long delay = settings.secondPassDelay().toMillis();
    Map<String, Long> due = new LinkedHashMap<>();
    long nextDue = Long.MAX_VALUE;
    synchronized (secondPass) {
      for (var it = secondPass.entrySet().iterator(); it.hasNext(); ) {
        Map.Entry<String, Long> e = it.next();
        if (e.getValue() + delay <= now) {
          due.put(e.getKey(), e.getValue());
          it.remove();
        } else {
          nextDue = Math.min(nextDue, e.getValue() + delay);
        }
      }
      secondPassScheduled = nextDue != Long.MAX_VALUE;
    }
    if (nextDue != Long.MAX_VALUE) {
      scheduleSafely(() -> runSecondPass(current), Math.max(1, nextDue - now));
    }
    try {
      current.invalidateReadBefore(due);
    } catch (RuntimeException e) {
      log.warn("cache '{}': second pass of an invalidation of {} ids failed: {}", cache.name(),
          due.size(), e.toString());
    }
  }

  /** Returns the tracker the cache records its lookups in; these services flush it. */
  public HotKeys hotKeys() {
    return hotKeys;
  }

  /**
   * Stops the services: the preload worker finishes its batch and releases the job lock, the
   * last stats and hot ids are flushed, the registry entry is removed, and the connection closed.
   * Errors are logged, never thrown. Idempotent. Does not close the cache.
   */
  @Override
  public void close() {
    synchronized (lock) {
      if (closed) {
        return;
      }
      closed = true;
      tasks.forEach(t -> t.cancel(false));
    }
    if (worker != null) {
      worker.close();
    }
    if (invalidations != null) {
      invalidations.close();
    }
    scheduler.shutdown();
    try {
      scheduler.awaitTermination(5, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    if (connection != null) {
      quietly("final stats flush", stats::flush);
      quietly("final hot-key flush", () -> hotKeys.flush(connection, keys, settings.clock));
      quietly("registry removal", registry::deregister);
      connection.close();
    }
    resources.shutdown(0, 2, TimeUnit.SECONDS);
  }

  private void quietly(String what, Runnable action) {
    try {
      action.run();
    } catch (RuntimeException e) {
      log.warn("cache '{}': {} failed while stopping: {}", cache.name(), what, e.toString());
    }
  }

  /**
   * Settings of the fleet services. Setters validate their argument at once. Not thread-safe.
   */
  public static final class Builder {

    private ValkeyEndpoint valkey;
    private String podName;
    private String podNamespace;
    private String podTemplateHash;
    private Duration l2Ttl = Duration.ofMinutes(4);
    private MeterRegistry meterRegistry;
    private WrittenKeys writtenKeys;
    private HotKeys hotKeys;
    private InstantSource clock = InstantSource.system();
    private String version = agentVersion();
    private boolean preload = true;
    private LocalTier localTier;
    private Duration lockTtl = Duration.ofSeconds(5);
    private Duration loadBound = Duration.ZERO;
    Duration heartbeatInterval = AgentRegistry.HEARTBEAT_INTERVAL;
    Duration flushInterval = StatsFlusher.FLUSH_INTERVAL;
    Duration pollInterval = PreloadWorker.POLL_INTERVAL;

    private Builder() {}

    private Builder copy() {
      Builder c = new Builder();
      c.valkey = valkey;
      c.podName = podName;
      c.podNamespace = podNamespace;
      c.podTemplateHash = podTemplateHash;
      c.l2Ttl = l2Ttl;
      c.meterRegistry = meterRegistry;
      c.writtenKeys = writtenKeys;
      c.hotKeys = hotKeys;
      c.clock = clock;
      c.version = version;
      c.preload = preload;
      c.localTier = localTier;
      c.lockTtl = lockTtl;
      c.loadBound = loadBound;
      c.heartbeatInterval = heartbeatInterval;
      c.flushInterval = flushInterval;
      c.pollInterval = pollInterval;
      return c;
    }

    /**
     * Sets the standalone Valkey server of the control keys (normally the cache's L2); this or
     * {@link #valkey} is required.
     */
    public Builder valkeyUri(RedisURI uri) {
      this.valkey = ValkeyEndpoint.standalone(Objects.requireNonNull(uri, "uri"));
      return this;
    }

    /**
     * Sets the Valkey server or cluster of the control keys (normally the cache's L2); this or
     * {@link #valkeyUri} is required. Its replica reads, if any, are not used: the services read
     * the primaries.
     */
    public Builder valkey(ValkeyEndpoint endpoint) {
      this.valkey = Objects.requireNonNull(endpoint, "endpoint");
      return this;
    }

    /** Sets the pod name: the registry field, the job owner (default: a random id). */
    public Builder podName(String podName) {
      this.podName = Objects.requireNonNull(podName, "podName");
      return this;
    }

    /** Sets the pod's namespace, published in the registry (default: none). */
    public Builder podNamespace(String namespace) {
      this.podNamespace = namespace;
      return this;
    }

    /** Sets the pod's {@code rollouts-pod-template-hash}, published in the registry (default: none). */
    public Builder podTemplateHash(String hash) {
      this.podTemplateHash = hash;
      return this;
    }

    /** Sets the cache's L2 TTL, which sets the expiry of the stats keys (default 4 min). */
    public Builder l2Ttl(Duration ttl) {
      Objects.requireNonNull(ttl, "l2Ttl");
      if (ttl.isNegative() || ttl.isZero()) {
        throw new IllegalArgumentException("l2Ttl must be positive: " + ttl);
      }
      this.l2Ttl = ttl;
      return this;
    }

    /**
     * Sets the registry the cache counts in (its {@code WarmGate.meterRegistry}); the stats are
     * the deltas of its {@code warmgate.*} counters. Required.
     */
    public Builder meterRegistry(MeterRegistry registry) {
      this.meterRegistry = Objects.requireNonNull(registry, "registry");
      return this;
    }

    /** Sets where the cache records the ids it writes to L2 (default: a new, unfed buffer). */
    public Builder writtenKeys(WrittenKeys writtenKeys) {
      this.writtenKeys = Objects.requireNonNull(writtenKeys, "writtenKeys");
      return this;
    }

    /** Sets the hot-key tracker and so its sampling, buffer, bound and half-life (default: the defaults). */
    public Builder hotKeys(HotKeys hotKeys) {
      this.hotKeys = Objects.requireNonNull(hotKeys, "hotKeys");
      return this;
    }

    /** Sets the clock of heartbeats, stats buckets, decay and job times (default: the system clock). */
    public Builder clock(InstantSource clock) {
      this.clock = Objects.requireNonNull(clock, "clock");
      return this;
    }

    /**
     * Sets how often stats and sampled hot ids are flushed to Valkey (default 5 s). Shorter means
     * fresher gate decisions and more Valkey calls: one script per cache per flush each.
     */
    public Builder flushInterval(Duration interval) {
      this.flushInterval = positive("flushInterval", interval);
      return this;
    }

    /** Sets how often the preload worker looks for a warm job of this schema hash (default 1 s). */
    public Builder pollInterval(Duration interval) {
      this.pollInterval = positive("pollInterval", interval);
      return this;
    }

    private static Duration positive(String name, Duration value) {
      Objects.requireNonNull(value, name);
      if (value.isNegative() || value.isZero()) {
        throw new IllegalArgumentException(name + " must be positive: " + value);
      }
      return value;
    }

    /**
     * Sets the cache's in-process tier, which the invalidation listener drops invalidated ids
     * from (default: none, and no listener runs).
     */
    public Builder localTier(LocalTier tier) {
      this.localTier = Objects.requireNonNull(tier, "tier");
      return this;
    }

    /** Sets the cache's lock TTL (default 5 s); see {@link #loadBound}. */
    public Builder lockTtl(Duration ttl) {
      this.lockTtl = positive("lockTtl", ttl);
      return this;
    }

    /**
     * Sets how long a load may run and still write what it read: the origin's timeout, past
     * which the cache drops a late answer instead of caching it. An invalidation is repeated once
     * a load that read the row before it must have ended: the longer of this and the lock TTL
     * after it ran (default: the lock TTL).
     */
    public Builder loadBound(Duration bound) {
      this.loadBound = positive("loadBound", bound);
      return this;
    }

    /** How long after an invalidation its second pass runs. */
    Duration secondPassDelay() {
      return loadBound.compareTo(lockTtl) > 0 ? loadBound : lockTtl;
    }

    /** Runs the preload worker (default {@code true}). */
    public Builder preload(boolean enabled) {
      this.preload = enabled;
      return this;
    }

    /**
     * Starts the services for {@code cache} (connecting in the background) and returns them; the
     * caller records the cache's lookups in {@link FleetServices#hotKeys()} and closes the
     * services before the cache.
     *
     * @throws IllegalStateException if no Valkey endpoint or meter registry was set
     */
    public FleetServices start(WarmableCache cache) {
      Objects.requireNonNull(cache, "cache");
      if (valkey == null) {
        throw new IllegalStateException("Valkey is not set: call valkey(...) or valkeyUri(...)");
      }
      if (meterRegistry == null) {
        throw new IllegalStateException("meterRegistry is not set: pass the registry the cache "
            + "was built with (WarmGate.meterRegistry), or the stats stay at zero");
      }
      FleetServices services = new FleetServices(this, cache);
      services.startConnecting();
      return services;
    }
  }
}
