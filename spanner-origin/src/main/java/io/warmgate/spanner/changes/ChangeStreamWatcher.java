package io.warmgate.spanner.changes;

import com.google.cloud.Timestamp;
import com.google.cloud.spanner.DatabaseClient;
import com.google.cloud.spanner.ResultSet;
import com.google.cloud.spanner.SpannerException;
import com.google.cloud.spanner.Statement;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.codec.StringCodec;
import io.lettuce.core.resource.ClientResources;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.warmgate.agent.TieredCache;
import io.warmgate.agent.WarmGateConfig;
import io.warmgate.agent.l2.KeySpace;
import io.warmgate.valkey.TokenLock;
import io.warmgate.valkey.ValkeyConnection;
import io.warmgate.valkey.ValkeyEndpoint;
import io.warmgate.contract.ChangeStreamNames;
import java.time.Duration;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reads a Spanner change stream over the origin's tables and invalidates, in every pod and live
 * key space of a cache, the ids each row change affects.
 *
 * <p><b>One reader per cache.</b> Every pod may run a watcher; the one holding the lock
 * {@code {wg:<cache>}:changes:<stream>:lock} (taken with {@code SET NX PX}, renewed every
 * {@value #RENEW_SECONDS} s, lapsing after {@value #LOCK_SECONDS} s) reads the stream, and another
 * takes over when it stops or dies. A reader is fenced: it reads only until one second before its
 * lock could lapse, counted from the last acquire or renewal Valkey confirmed, so a reader that
 * cannot renew (Valkey unreachable from its pod, a stalled link) has stopped before another can
 * take over; it writes the watermark only in a script that checks it still holds the lock.
 *
 * <p><b>Nothing skipped.</b> The reader queries the stream from its watermark (partition token
 * {@code NULL}), then each partition the query announces, and each child partition those
 * announce. A partition's progress (its last commit or heartbeat timestamp) advances only after the
 * ids of its changes were invalidated, retrying while invalidation fails; the watermark, the least
 * progress of the partitions being read, is written every second to
 * {@code {wg:<cache>}:changes:<stream>} ({@code watermark}, {@code lagMs}, {@code owner},
 * {@code updatedAt}). A new reader resumes from it: changes after it are read again, and
 * invalidating an id twice is harmless. The first reader of a cache starts at the time it starts:
 * values cached before then are bounded by their TTLs.
 *
 * <p><b>A lost watermark is reported.</b> When a watcher that had seen a watermark (its own, or one
 * it saw while another pod read) takes the lock and finds none (Valkey restarted without
 * persistence, the key evicted or deleted), it starts from now as well, and changes made since the
 * lost watermark are not invalidated: pods may serve them until their values expire, at most
 * {@code maxStaleness} later. It writes {@code watermarkLostAt} and {@code watermarkLostUntil}
 * (that time plus {@code maxStaleness}) into the hash, which the operator reports as
 * {@code ChangesFollowed=False} ({@code WatermarkLost}) until then, and counts it in
 * {@code warmgate.changes.watermark.lost}.
 */
public final class ChangeStreamWatcher implements AutoCloseable {

  private static final Logger log = LoggerFactory.getLogger(ChangeStreamWatcher.class);
  static final int LOCK_SECONDS = 10;
  static final int RENEW_SECONDS = 3;
  /**
   * A reader stops this long before its lock could lapse: the pod's clock and Valkey's may run at
   * slightly different rates, and a command in flight takes time to land.
   */
  static final long FENCE_MARGIN_MILLIS = 1_000;

  /**
   * KEYS = lock, state; ARGV = token, ttl ms. Takes the lock if free, or keeps it if this token
   * holds it; returns {1 if held now else 0, the saved watermark or ''}, read at one instant.
   */
  private static final String ACQUIRE = """
      local held = redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2])
      if not held and redis.call('GET', KEYS[1]) == ARGV[1] then
        redis.call('PEXPIRE', KEYS[1], ARGV[2])
        held = true
      end
      local mark = ''
      if redis.call('TYPE', KEYS[2]).ok == 'hash' then
        mark = redis.call('HGET', KEYS[2], 'watermark') or ''
      end
      return {held and 1 or 0, mark}
      """;

  /**
   * KEYS = lock, state; ARGV = token, then field/value pairs. Writes them into the state hash only
   * if the token holds the lock: 1 if it did, else 0.
   */
  private static final String SAVE = """
      if redis.call('GET', KEYS[1]) ~= ARGV[1] then
        return 0
      end
      redis.call('HSET', KEYS[2], unpack(ARGV, 2))
      return 1
      """;
  private final Builder settings;
  private final String stateKey;
  private final TokenLock lock;
  private final String token;
  private final ClientResources resources = ValkeyConnection.resources(1);
  private final ValkeyEndpoint endpoint;
  /** The Valkey connection, opened in the background and again after a failed attempt. */
  private volatile CompletableFuture<ValkeyConnection<String>> connecting;
  private final ScheduledExecutorService timer;
  private final ExecutorService readers;
  /** Progress of each partition being read: token (or "" for the first query) → timestamp. */
  private final Map<String, Timestamp> progress = new ConcurrentHashMap<>();
  private final Set<String> started = ConcurrentHashMap.newKeySet();
  private final Counter watermarksLost;
  private final Counter fenced;
  private volatile boolean leading;
  private volatile boolean closed;
  private volatile long generation;
  /** {@link System#nanoTime()} until which the lock is known to be held. */
  private volatile long heldUntilNanos;
  /** Whether this watcher has seen a saved watermark, so that finding none means it was lost. */
  private volatile boolean sawWatermark;

  private ChangeStreamWatcher(Builder b) {
    this.settings = b;
    KeySpace keys = new KeySpace(b.cache.name(), b.cache.schemaHash());
    this.stateKey = keys.changesKey(b.stream);
    this.lock = new TokenLock(keys.changesLockKey(b.stream), Duration.ofSeconds(LOCK_SECONDS));
    this.token = b.podName + "/" + UUID.randomUUID();
    this.endpoint = b.valkey.withReadFrom(ValkeyEndpoint.ReadFrom.PRIMARY);
    this.connecting = open();
    this.heldUntilNanos = System.nanoTime();
    this.timer = Executors.newSingleThreadScheduledExecutor(daemon("warmgate-changes-lock"));
    this.readers = Executors.newCachedThreadPool(daemon("warmgate-changes-reader"));
    this.watermarksLost = Counter.builder("warmgate.changes.watermark.lost")
        .description("Times a reader found the saved watermark gone and started from now")
        .tags("cache", b.cache.name(), "stream", b.stream).register(b.meterRegistry);
    this.fenced = Counter.builder("warmgate.changes.fenced")
        .description("Times a reader stopped because it could not confirm its lock in time")
        .tags("cache", b.cache.name(), "stream", b.stream).register(b.meterRegistry);
    timer.scheduleWithFixedDelay(this::lead, 0, RENEW_SECONDS, TimeUnit.SECONDS);
    timer.scheduleWithFixedDelay(this::saveWatermark, 1, 1, TimeUnit.SECONDS);
  }

  /**
   * Returns a builder reading change stream {@code stream} of {@code database}.
   *
   * @throws IllegalArgumentException if {@code stream} is not a change stream name
   */
  public static Builder builder(DatabaseClient database, String stream) {
    Objects.requireNonNull(database, "database");
    if (!ChangeStreamNames.isValid(stream)) {
      throw new IllegalArgumentException("change stream name '" + stream + "' is invalid: "
          + ChangeStreamNames.RULE);
    }
    return new Builder(database, stream);
  }

  /** Whether this watcher holds the lock and reads the stream. */
  public boolean isLeading() {
    return leading && lockConfirmed();
  }

  /** Whether readers of reading {@code gen} may go on: it is current and the lock is held. */
  private boolean holding(long gen) {
    if (gen != generation || closed) {
      return false;
    }
    if (!lockConfirmed()) {
      fence(); // noticed here first when the heartbeat's renewal is stuck on a cut-off link
      return false;
    }
    return true;
  }

  /** Stops reading, once, when no renewal confirmed the lock in time; counts and logs it. */
  private synchronized void fence() {
    if (leading && !lockConfirmed()) {
      log.warn("change stream {}: could not renew the reader lock within {} s; stopped reading, "
          + "so that another pod can take over", settings.stream, LOCK_SECONDS);
      fenced.increment();
      stopReading();
    }
  }

  /** Whether the last confirmed acquire or renewal still covers now, less the margin. */
  private boolean lockConfirmed() {
    return System.nanoTime() - heldUntilNanos < 0;
  }

  private CompletableFuture<ValkeyConnection<String>> open() {
    return ValkeyConnection.open(endpoint, StringCodec.UTF8, resources,
        ValkeyConnection.CONNECT_TIMEOUT);
  }

  /**
   * The Valkey connection, waiting for an attempt under way; null while Valkey cannot be reached
   * (a new attempt is then started). Lettuce reconnects an opened connection by itself.
   */
  private ValkeyConnection<String> connection() {
    CompletableFuture<ValkeyConnection<String>> attempt = connecting;
    try {
      return attempt.get(ValkeyConnection.CONNECT_TIMEOUT.toMillis() + 500, TimeUnit.MILLISECONDS);
    } catch (TimeoutException e) {
      return null;
    } catch (ExecutionException e) {
      log.warn("change stream {}: cannot reach Valkey at {}, trying again: {}", settings.stream,
          endpoint, e.getCause().toString());
      if (!closed) {
        connecting = open();
      }
      return null;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return null;
    }
  }

  private void lead() {
    fence();
    ValkeyConnection<String> valkey = connection();
    if (valkey == null) {
      return;
    }
    try {
      long sent = System.nanoTime();
      if (leading) {
        if (lock.renew(valkey.sync(), token)) {
          heldUntil(sent);
        } else {
          log.warn("change stream {}: lost the reader lock; another pod reads it now", settings.stream);
          stopReading();
        }
        return;
      }
      List<Object> reply = valkey.sync().eval(ACQUIRE, ScriptOutputType.MULTI,
          new String[] {lock.key(), stateKey}, token,
          Long.toString(Duration.ofSeconds(LOCK_SECONDS).toMillis()));
      String saved = String.valueOf(reply.get(1));
      if (((Long) reply.get(0)) == 1L) {
        heldUntil(sent);
        startReading(valkey, saved.isEmpty() ? null : saved);
      } else if (!saved.isEmpty()) {
        sawWatermark = true;
      }
    } catch (RuntimeException e) {
      log.warn("change stream {}: reader lock: {}", settings.stream, e.toString());
    }
  }

  private void heldUntil(long sentNanos) {
    heldUntilNanos = sentNanos + TimeUnit.SECONDS.toNanos(LOCK_SECONDS)
        - TimeUnit.MILLISECONDS.toNanos(FENCE_MARGIN_MILLIS);
  }

  private void startReading(ValkeyConnection<String> valkey, String saved) {
    Timestamp from = parse(saved);
    if (from == null) {
      from = Timestamp.now();
      if (sawWatermark) {
        reportLostWatermark(valkey, from);
      }
    } else {
      sawWatermark = true;
    }
    leading = true;
    long gen = ++generation;
    progress.clear();
    started.clear();
    log.info("change stream {}: reading from {} as {}", settings.stream, from, token);
    read("", null, from, gen);
  }

  /** Records in the state hash and the metric that this reader starts from now, not from a watermark. */
  private void reportLostWatermark(ValkeyConnection<String> valkey, Timestamp from) {
    watermarksLost.increment();
    long now = from.toSqlTimestamp().getTime();
    long until = now + settings.maxStaleness.toMillis();
    log.error("change stream {}: the saved watermark in {} is gone (Valkey restarted without "
        + "persistence, or the key was evicted or deleted); reading from now, {}: rows changed "
        + "since the lost watermark were not invalidated and may be served until {}",
        settings.stream, stateKey, from, java.time.Instant.ofEpochMilli(until));
    try {
      save(valkey, "watermarkLostAt", Long.toString(now), "watermarkLostUntil",
          Long.toString(until), "owner", token);
    } catch (RuntimeException e) {
      log.warn("change stream {}: cannot record the lost watermark: {}", settings.stream,
          e.toString());
    }
  }

  /** Writes field/value pairs into the state hash if this watcher holds the lock; whether it did. */
  private boolean save(ValkeyConnection<String> valkey, String... fieldsAndValues) {
    String[] args = new String[fieldsAndValues.length + 1];
    args[0] = token;
    System.arraycopy(fieldsAndValues, 0, args, 1, fieldsAndValues.length);
    Long saved = valkey.sync().eval(SAVE, ScriptOutputType.INTEGER,
        new String[] {lock.key(), stateKey}, args);
    return saved != null && saved == 1L;
  }

  private void stopReading() {
    leading = false;
    generation++;
  }

  /** Reads one partition ({@code token} null: the first query) in a thread of its own. */
  private void read(String key, String partition, Timestamp from, long gen) {
    if (!started.add(key)) {
      return; // a child of two parents is announced twice
    }
    progress.put(key, from);
    readers.execute(() -> {
      while (holding(gen)) {
        try {
          readPartition(key, partition, gen);
          if (gen == generation) {
            progress.remove(key);
          }
          return;
        } catch (SpannerException | IllegalStateException e) {
          if (!holding(gen)) {
            return;
          }
          log.warn("change stream {}: partition {} failed, resuming at {}: {}", settings.stream,
              key.isEmpty() ? "(first query)" : key, progress.get(key), e.toString());
          sleep(1_000);
        }
      }
    });
  }

  private void readPartition(String key, String partition, long gen) {
    Statement query = Statement.newBuilder("SELECT ChangeRecord FROM READ_" + settings.stream
            + "(start_timestamp => @start, end_timestamp => NULL, partition_token => @token, "
            + "heartbeat_milliseconds => @heartbeat)")
        .bind("start").to(progress.get(key))
        .bind("token").to(partition)
        .bind("heartbeat").to(settings.heartbeat.toMillis())
        .build();
    try (ResultSet rows = settings.database.singleUse().executeQuery(query)) {
      while (rows.next()) {
        if (!holding(gen)) {
          return;
        }
        ChangeRecords.Batch batch = ChangeRecords.read(rows.getStructList(0));
        invalidate(batch.changes(), gen);
        if (!holding(gen)) {
          return; // fenced while invalidating: this batch's progress is not this reader's to record
        }
        if (batch.progress() != null) {
          // Only while this reading lasts: a reader of an earlier one must not pin the watermark.
          progress.computeIfPresent(key, (k, old) -> gen == generation ? batch.progress() : old);
        }
        for (ChangeRecords.ChildPartition child : batch.children()) {
          read(child.token(), child.token(), child.start(), gen);
        }
      }
    }
  }

  /** Invalidates the ids of {@code changes}, retrying until it succeeds or reading stops. */
  private void invalidate(Collection<DataChange> changes, long gen) {
    if (changes.isEmpty()) {
      return;
    }
    Set<String> ids = new LinkedHashSet<>();
    for (DataChange change : changes) {
      ChangeMapper mapper = settings.tables.get(change.table());
      if (mapper == null) {
        continue;
      }
      while (true) {
        try {
          ids.addAll(mapper.ids(change));
          break;
        } catch (Exception e) {
          if (!retry(gen, "mapping a change of table " + change.table(), e)) {
            return;
          }
        }
      }
    }
    while (!ids.isEmpty()) {
      try {
        settings.cache.invalidateAll(ids);
        return;
      } catch (RuntimeException e) {
        if (!retry(gen, "invalidating " + ids.size() + " ids", e)) {
          return;
        }
      }
    }
  }

  private boolean retry(long gen, String what, Exception e) {
    log.warn("change stream {}: {} failed, retrying: {}", settings.stream, what, e.toString());
    sleep(500);
    return holding(gen);
  }

  /** The least progress of the partitions being read, or null when none is. */
  Timestamp currentWatermark() {
    Timestamp least = null;
    for (Timestamp t : progress.values()) {
      if (least == null || t.compareTo(least) < 0) {
        least = t;
      }
    }
    return least;
  }

  private void saveWatermark() {
    long gen = generation;
    if (!leading || !holding(gen)) {
      return;
    }
    Timestamp mark = currentWatermark();
    if (mark == null) {
      return;
    }
    try {
      ValkeyConnection<String> valkey = connection();
      if (valkey == null) {
        return;
      }
      long now = System.currentTimeMillis();
      if (save(valkey, "watermark", mark.toString(),
          "lagMs", Long.toString(Math.max(0, now - mark.toSqlTimestamp().getTime())),
          "owner", token, "updatedAt", Long.toString(now))) {
        sawWatermark = true;
      } else if (gen == generation) {
        log.warn("change stream {}: the reader lock is no longer this pod's; stopped reading",
            settings.stream);
        stopReading();
      }
    } catch (RuntimeException e) {
      log.warn("change stream {}: cannot save the watermark: {}", settings.stream, e.toString());
    }
  }

  private Timestamp parse(String saved) {
    if (saved == null) {
      return null;
    }
    try {
      return Timestamp.parseTimestamp(saved);
    } catch (RuntimeException e) {
      log.warn("change stream {}: watermark '{}' in {} is not a timestamp; starting from now",
          settings.stream, saved, stateKey);
      return null;
    }
  }

  /**
   * Stops reading: saves the watermark, releases the lock so another pod takes over at once,
   * and closes the Valkey connection. Waits up to a heartbeat for readers to notice.
   */
  @Override
  public void close() {
    if (closed) {
      return;
    }
    saveWatermark();
    closed = true;
    boolean wasLeading = leading;
    stopReading();
    timer.shutdownNow();
    readers.shutdown();
    try {
      readers.awaitTermination(settings.heartbeat.toMillis() * 2 + 1_000, TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    ValkeyConnection<String> valkey = connecting.getNow(null);
    if (wasLeading && valkey != null) {
      try {
        lock.release(valkey.sync(), token);
      } catch (RuntimeException e) {
        log.warn("change stream {}: cannot release the reader lock: {}", settings.stream, e.toString());
      }
    }
    connecting.whenComplete((c, error) -> {
      if (c != null) {
        c.close();
      }
    });
    resources.shutdown(0, 2, TimeUnit.SECONDS);
  }

  private static void sleep(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private static java.util.concurrent.ThreadFactory daemon(String name) {
    return r -> {
      Thread t = new Thread(r, name);
      t.setDaemon(true);
      return t;
    };
  }

  /** Settings of a watcher. Not thread-safe. */
  public static final class Builder {

    private final DatabaseClient database;
    private final String stream;
    private final Map<String, ChangeMapper> tables = new HashMap<>();
    private TieredCache<?> cache;
    private ValkeyEndpoint valkey;
    private String podName = "pod-" + UUID.randomUUID();
    private Duration heartbeat = Duration.ofSeconds(1);
    private Duration maxStaleness = Duration.ofMinutes(5);
    private MeterRegistry meterRegistry = new SimpleMeterRegistry();

    private Builder(DatabaseClient database, String stream) {
      this.database = database;
      this.stream = stream;
    }

    /** Sets the cache whose values the changes invalidate (required). */
    public Builder cache(TieredCache<?> cache) {
      this.cache = Objects.requireNonNull(cache, "cache");
      return this;
    }

    /** Sets the cache's Valkey, where the reader lock and watermark live (required). */
    public Builder valkey(ValkeyEndpoint endpoint) {
      this.valkey = Objects.requireNonNull(endpoint, "endpoint");
      return this;
    }

    /**
     * Maps the changes of {@code table} to ids; changes of tables without a mapping invalidate
     * nothing.
     */
    public Builder mapTable(String table, ChangeMapper mapper) {
      tables.put(Objects.requireNonNull(table, "table"), Objects.requireNonNull(mapper, "mapper"));
      return this;
    }

    /**
     * Takes the Valkey endpoint, pod name and heartbeat from the agent's settings, as the
     * operator injects them; the stream name is {@link WarmGateConfig#changeStream()}.
     *
     * @throws IllegalArgumentException if {@code config} names no Valkey address
     */
    public Builder config(WarmGateConfig config) {
      Objects.requireNonNull(config, "config");
      valkey(config.valkeyEndpoint().orElseThrow(() -> new IllegalArgumentException(
          WarmGateConfig.VALKEY_ADDRESSES + " is not set: the change stream watcher keeps its "
              + "lock and watermark in the cache's Valkey")));
      config.podName().ifPresent(this::podName);
      maxStaleness(config.maxStaleness());
      return heartbeat(config.changeStreamHeartbeat());
    }

    /**
     * Sets the cache's {@code maxStaleness}, the longest a value is served after its origin read
     * (default 5 min): after a lost watermark, how long pods may serve rows changed before it.
     */
    public Builder maxStaleness(Duration maxStaleness) {
      Objects.requireNonNull(maxStaleness, "maxStaleness");
      if (maxStaleness.isNegative() || maxStaleness.isZero()) {
        throw new IllegalArgumentException("maxStaleness must be positive: " + maxStaleness);
      }
      this.maxStaleness = maxStaleness;
      return this;
    }

    /**
     * Sets where the watcher counts lost watermarks and fenced readings (default: a registry of
     * its own, read by nobody); pass the application's, as for the cache.
     */
    public Builder meterRegistry(MeterRegistry registry) {
      this.meterRegistry = Objects.requireNonNull(registry, "registry");
      return this;
    }

    /** Sets the pod name, written as the lock's owner (default: a random id). */
    public Builder podName(String podName) {
      this.podName = Objects.requireNonNull(podName, "podName");
      return this;
    }

    /**
     * Sets how often an idle partition reports progress (default 1 s): the bound on how stale the
     * saved watermark is, and on how long a stopping reader takes to notice.
     */
    public Builder heartbeat(Duration heartbeat) {
      Objects.requireNonNull(heartbeat, "heartbeat");
      if (heartbeat.toMillis() < 100 || heartbeat.toMillis() > 300_000) {
        throw new IllegalArgumentException("heartbeat " + heartbeat + " is out of range: Spanner "
            + "takes 100 ms to 5 min");
      }
      this.heartbeat = heartbeat;
      return this;
    }

    /**
     * Starts the watcher: it connects to Valkey in the background (again and again while Valkey
     * cannot be reached, so an application starts without it) and competes for the reader lock.
     *
     * @throws IllegalStateException if the cache, Valkey or every table mapping is missing
     */
    public ChangeStreamWatcher start() {
      if (cache == null) {
        throw new IllegalStateException("cache is not set: call cache(...) with the cache the "
            + "changes invalidate");
      }
      if (valkey == null) {
        throw new IllegalStateException("Valkey is not set: call valkey(...) with the cache's L2 "
            + "endpoint, where the reader lock and the watermark live");
      }
      if (tables.isEmpty()) {
        throw new IllegalStateException("no table is mapped: call mapTable(table, mapper) for each "
            + "table of the change stream whose changes affect cached values");
      }
      return new ChangeStreamWatcher(this);
    }
  }
}
