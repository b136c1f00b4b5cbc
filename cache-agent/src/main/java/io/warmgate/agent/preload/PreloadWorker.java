package io.warmgate.agent.preload;

import io.lettuce.core.LettuceFutures;
import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.RedisFuture;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import io.lettuce.core.cluster.api.sync.RedisClusterCommands;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.warmgate.agent.l2.KeySpace;
import io.warmgate.valkey.TokenLock;
import io.warmgate.valkey.ValkeyConnection;
import io.warmgate.contract.valkey.WarmJobState;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Works the warm job of one cache's namespace, {@code {wg:<cache>}:warm:<schemaHash>}, from one
 * thread of its own.
 *
 * <p>Every poll interval it reads the job; if the job is {@code Open} or {@code Running} it tries
 * to take {@code {wg:<cache>}:warm:<hash>:lock} ({@code SET NX PX 10000} with a token of its own).
 * The pod that wins renews the lock every 3 s while it works, so when it dies the lock lapses and
 * another pod of the same hash takes the job over. The holder re-reads the job, marks it
 * {@code Running} with itself as {@code owner}, then from {@code cursor} on reads
 * {@code batchSize} ids of {@code {wg:<cache>}:warm:<hash>:ids} at a time, waits for the job's
 * {@code rate} ({@link Pacer}), loads them with one {@link WarmableCache#fillL2} (ids L2 holds
 * cost nothing; the others are one origin call and are written to L2, whatever this pod's L1
 * holds), and records {@code filled}, {@code errors}, {@code cursor} and {@code updatedAt}.
 * Invalid ids (empty, too long, not well-formed Unicode) count as errors and the rest of their
 * batch loads. Before a batch is read from the origin, L2 must answer (one pipelined
 * {@code PTTL} per id): the origin is never read for a batch that cannot be written. A batch the
 * origin fails (also at once, while its circuit breaker is open) or L2 does not answer is not
 * counted as errors: the same ids are retried after a bounded exponential back-off
 * ({@link #BACKOFF_INITIAL} doubling to {@link #BACKOFF_MAX}), progress stays where it is and the
 * job's {@code message} says what it is waiting for. Only ids that L2 keeps refusing while it
 * answers (too large, not encodable) count as errors after {@value #ATTEMPTS} attempts. When the
 * cursor reaches {@code min(target, list length)} the job is {@code Done}; a job whose fields
 * cannot be read is {@code Failed} with a message naming the field.
 *
 * <p><b>Under an origin budget</b> the job carries a {@code ceiling} (ids per second the
 * operator's {@code originBudget} leaves above the steady origin rate, re-read before every
 * batch): the rate then adapts under {@code min(rate, ceiling)} ({@link AimdRate}: it starts at a
 * tenth, grows gradually while the origin's latency on the batches stays near its baseline, halves
 * when it rises or the origin errs), only the ids L2 lacks are paced, batches are a twentieth of a
 * second at the ceiling, and a ceiling below one id per second pauses the preload. The rate in use
 * is recorded in the job's {@code rateInUse} and the {@code warmgate.preload.rate} gauge.
 *
 * <p>While a {@code Done} job's {@code keepWarmUntil} (set by the operator while the canary is
 * held) is in the future, the ids are kept warm: every eighth of the L2 TTL one pod takes the lock
 * and reloads, at the job's rate, the ids whose entry is missing or has less than a quarter of the
 * L2 TTL left ({@link WarmableCache#fillL2(java.util.Collection, Duration)}), then records
 * {@code keptWarmAt}, {@code keptWarm} and {@code keepWarm}.
 *
 * <p>Every write to the job is one script that first checks that the lock still holds this
 * worker's token and the job is still in the expected state, and renews the job's and the id
 * list's expiry to an hour, so a pod that lost the lock (or a job the operator removed or
 * finished) is never written to. Progress is recorded after each batch, so a takeover reloads at
 * most the batch in flight; {@link #close()} finishes or abandons that batch first, records it and
 * releases the lock, so after a clean stop nothing is reloaded.
 */
public final class PreloadWorker implements AutoCloseable {

  /** Expiry of the job lock. */
  public static final Duration LOCK_TTL = Duration.ofSeconds(10);
  /** How often the holder renews the lock. */
  public static final Duration RENEW_INTERVAL = Duration.ofSeconds(3);
  /** How often the job is looked for. */
  public static final Duration POLL_INTERVAL = Duration.ofSeconds(1);
  /** Expiry of the job and its id list after the last update. */
  public static final Duration JOB_TTL = Duration.ofHours(1);
  /**
   * Attempts per batch whose L2 writes fall short while L2 answers, before the ids L2 did not
   * take count as errors.
   */
  static final int ATTEMPTS = 3;
  /** First wait before a batch the origin or L2 failed is retried; doubled after each failure. */
  public static final Duration BACKOFF_INITIAL = Duration.ofSeconds(1);
  /** Longest wait between retries of a batch. */
  public static final Duration BACKOFF_MAX = Duration.ofSeconds(30);
  /** Bound of the check that L2 answers before a batch is read from the origin. */
  static final Duration L2_CHECK_TIMEOUT = Duration.ofSeconds(2);

  private static final Logger log = LoggerFactory.getLogger(PreloadWorker.class);

  /**
   * KEYS = lock, job, ids; ARGV = token, TTL ms, allowed states (",Running," or "*" = any but
   * Done and Failed), then field/value pairs. Returns 1 if written, 0 if the lock is not ours, -1
   * if the job is gone or in another state.
   */
  private static final String UPDATE = """
      if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
      if redis.call('EXISTS', KEYS[2]) == 0 then return -1 end
      local state = redis.call('HGET', KEYS[2], 'state')
      if ARGV[3] == '*' then
        if state == 'Done' or state == 'Failed' then return -1 end
      elseif not state or not string.find(ARGV[3], ',' .. state .. ',', 1, true) then
        return -1
      end
      redis.call('HSET', KEYS[2], unpack(ARGV, 4))
      redis.call('PEXPIRE', KEYS[2], ARGV[2])
      redis.call('PEXPIRE', KEYS[3], ARGV[2])
      return 1
      """;
  /** {@link #UPDATE}'s allowed states of a job being taken, worked, or kept warm. */
  private static final String IF_ACTIVE = allowed(WarmJobState.Open, WarmJobState.Running);
  private static final String IF_RUNNING = allowed(WarmJobState.Running);
  private static final String IF_DONE = allowed(WarmJobState.Done);

  private final ValkeyConnection<String> connection;
  private final WarmableCache cache;
  private final String pod;
  private final InstantSource clock;
  private final ScheduledExecutorService scheduler;
  private final Duration pollInterval;
  private final KeySpace keys;
  private final Duration backoffInitial;
  private final Duration backoffMax;
  private final Duration keepWarmMargin;
  private final Duration keepWarmPeriod;
  private final String jobKey;
  private final String idsKey;
  private final String lockKey;
  private final TokenLock lock;
  private final String[] updateKeys;
  private final CountDownLatch stop = new CountDownLatch(1);
  /** {@code warmgate.preload.keys} by result; null until {@link #countIn} is called. */
  private volatile Counter loadedIds;
  private volatile Counter failedIds;
  private volatile Counter keptWarmIds;
  private final Thread thread;
  private volatile boolean lockLost;
  private volatile boolean closing;
  /** Ids per second the preload loads at now; 0 while it does not. */
  private volatile double rateInUse;

  /**
   * Creates a worker for the namespace of {@code cache}, whose L2 TTL is the default 4 min; it
   * starts with {@link #start()}.
   *
   * @param cache the cache the ids are loaded through (not the hot-key sampler, so preloading does
   *     not make ids hot)
   * @param pod this pod's name, recorded as the job's {@code owner}
   * @param scheduler runs the lock renewals; not owned
   * @param pollInterval how often to look for a job ({@link #POLL_INTERVAL} in production)
   */
  public PreloadWorker(ValkeyConnection<String> connection, WarmableCache cache,
      String pod, InstantSource clock, ScheduledExecutorService scheduler, Duration pollInterval) {
    this(connection, cache, pod, clock, scheduler, pollInterval, Duration.ofMinutes(4));
  }

  /**
   * As above for a cache whose L2 TTL is {@code l2Ttl}: keep-warm reloads the ids of a
   * {@code Done} job whose entries have less than a quarter of it left, in passes an eighth of
   * it apart.
   */
  public PreloadWorker(ValkeyConnection<String> connection, WarmableCache cache,
      String pod, InstantSource clock, ScheduledExecutorService scheduler, Duration pollInterval,
      Duration l2Ttl) {
    this(connection, cache, pod, clock, scheduler, pollInterval, l2Ttl, BACKOFF_INITIAL,
        BACKOFF_MAX);
  }

  /** As above, with the back-off bounds of failed batches (tests shorten them). */
  PreloadWorker(ValkeyConnection<String> connection, WarmableCache cache,
      String pod, InstantSource clock, ScheduledExecutorService scheduler, Duration pollInterval,
      Duration l2Ttl, Duration backoffInitial, Duration backoffMax) {
    this.backoffInitial = Objects.requireNonNull(backoffInitial, "backoffInitial");
    this.backoffMax = Objects.requireNonNull(backoffMax, "backoffMax");
    this.keepWarmMargin = l2Ttl.dividedBy(4);
    this.keepWarmPeriod = l2Ttl.dividedBy(8);
    this.connection = Objects.requireNonNull(connection, "connection");
    this.cache = Objects.requireNonNull(cache, "cache");
    this.pod = Objects.requireNonNull(pod, "pod");
    this.clock = Objects.requireNonNull(clock, "clock");
    this.scheduler = Objects.requireNonNull(scheduler, "scheduler");
    this.pollInterval = Objects.requireNonNull(pollInterval, "pollInterval");
    this.keys = new KeySpace(cache.name(), cache.schemaHash());
    this.jobKey = keys.warmJobKey();
    this.idsKey = keys.warmIdsKey();
    this.lockKey = keys.warmLockKey();
    this.lock = new TokenLock(lockKey, LOCK_TTL);
    this.updateKeys = new String[] {lockKey, jobKey, idsKey};
    this.thread = new Thread(this::run, "warmgate-" + cache.name() + "-preload");
    thread.setDaemon(true);
  }

  /**
   * Counts the ids this worker loads in {@code registry} as {@code warmgate.preload.keys} with tags
   * {@code cache} and {@code result} ({@code loaded} and {@code failed} for the job's ids,
   * {@code kept_warm} for ids reloaded to keep them warm). Call before {@link #start()}.
   */
  public PreloadWorker countIn(MeterRegistry registry) {
    loadedIds = preloadCounter(registry, "loaded");
    failedIds = preloadCounter(registry, "failed");
    keptWarmIds = preloadCounter(registry, "kept_warm");
    Gauge.builder("warmgate.preload.rate", this, w -> w.rateInUse).tag("cache", cache.name())
        .baseUnit("ids.per.second")
        .description("Ids per second the preload worker loads at now (adaptive under an origin "
            + "budget); 0 while it does not preload")
        .register(registry);
    return this;
  }

  private Counter preloadCounter(MeterRegistry registry, String result) {
    return Counter.builder("warmgate.preload.keys").tag("cache", cache.name())
        .tag("result", result)
        .description("Ids the preload worker loaded into L2 (loaded, failed) or reloaded to keep "
            + "them warm (kept_warm)")
        .register(registry);
  }

  private static void count(Counter counter, long n) {
    if (counter != null && n > 0) {
      counter.increment(n);
    }
  }

  /** Starts polling for the job. */
  public void start() {
    thread.start();
  }

  /**
   * Stops the worker: the batch in flight is finished (or, if it is still waiting for the rate,
   * abandoned) and recorded, the lock is released, and the thread ends; waits up to 30 s for it.
   * Idempotent.
   */
  @Override
  public void close() {
    closing = true;
    stop.countDown();
    if (thread.isAlive() && thread != Thread.currentThread()) {
      try {
        thread.join(TimeUnit.SECONDS.toMillis(30));
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
  }

  private void run() {
    boolean failing = false;
    while (!closing) {
      try {
        pollOnce();
        if (failing) {
          log.info("cache '{}': warm job polling works again", cache.name());
          failing = false;
        }
      } catch (RuntimeException e) {
        if (!failing) {
          log.warn("cache '{}': warm job polling failed, retrying every {}: {}", cache.name(),
              pollInterval, e.toString());
          failing = true;
        }
      }
      if (await(pollInterval.toNanos())) {
        return;
      }
    }
  }

  /**
   * Looks at the job once and, if it is active and this worker wins its lock, works it until it is
   * done, the lock is lost or the worker closes.
   *
   * @return whether this worker held the lock
   */
  boolean pollOnce() {
    RedisClusterCommands<String, String> redis = connection.sync();
    Map<String, String> fields = redis.hgetall(jobKey);
    boolean keepWarm = keepWarmDue(fields);
    if (fields.isEmpty() || (isFinished(fields.get("state")) && !keepWarm)) {
      return false;
    }
    String token = pod + "/" + UUID.randomUUID();
    if (!lock.acquire(redis, token)) {
      return false;
    }
    lockLost = false;
    ScheduledFuture<?> renewal = scheduler.scheduleAtFixedRate(() -> renew(token),
        RENEW_INTERVAL.toMillis(), RENEW_INTERVAL.toMillis(), TimeUnit.MILLISECONDS);
    try {
      if (keepWarm) {
        keepWarm(token);
      } else {
        work(token);
      }
    } finally {
      renewal.cancel(false);
      try {
        lock.release(redis, token);
      } catch (RuntimeException e) {
        log.debug("cache '{}': could not release the warm job lock; it lapses in {}",
            cache.name(), LOCK_TTL, e);
      }
    }
    return true;
  }

  private void work(String token) {
    RedisClusterCommands<String, String> redis = connection.sync();
    // Re-read under the lock: a previous owner may have made progress since the poll.
    Map<String, String> fields = redis.hgetall(jobKey);
    WarmJob job;
    try {
      job = WarmJob.parse(fields);
    } catch (WarmJob.InvalidJobException e) {
      log.warn("cache '{}': failing warm job {}: {}", cache.name(), jobKey, e.getMessage());
      update(token, "*", WarmJob.failedFields(e.getMessage(), pod, clock.millis()));
      return;
    }
    if (!job.state().isActive()) {
      return;
    }
    long listLength;
    try {
      listLength = redis.llen(idsKey);
    } catch (RedisCommandExecutionException e) {
      // Not a list (WRONGTYPE): retrying cannot help, so the job fails naming the key.
      String message = "the id list " + idsKey + " is not a list (" + e.getMessage()
          + "): the operator must write the ids as a list";
      update(token, "*", WarmJob.failedFields(message, pod, clock.millis()));
      return;
    }
    if (job.target() > 0 && listLength == 0) {
      String message = "the id list " + idsKey + " is empty or missing but target is "
          + job.target() + ": the operator must write the ids before opening the job";
      update(token, "*", WarmJob.failedFields(message, pod, clock.millis()));
      return;
    }
    long end = job.end(listLength);
    job = job.start();
    Map<String, String> start = job.progressFields(pod, clock.millis());
    start.put("message", ""); // whatever an earlier attempt reported no longer holds
    if (!update(token, IF_ACTIVE, start)) {
      return;
    }
    log.info("cache '{}': preloading {} from id {} to {} at {} ids/s in batches of {}",
        cache.name(), jobKey, job.cursor(), end, job.rate(), job.batchSize());
    Pacer pacer = new Pacer(job.rate(), System::nanoTime, this::await);
    AimdRate aimd = null;
    rateInUse = job.rate();
    while (job.cursor() < end) {
      if (closing || lockLost) {
        return;
      }
      Double ceiling = ceiling(redis.hget(jobKey, "ceiling"));
      if (ceiling != null && Math.min(job.rate(), ceiling) < AimdRate.FLOOR) {
        // The origin has no budget left for a preload: wait for the operator to say it has.
        rateInUse = 0;
        Map<String, String> paused = new LinkedHashMap<>();
        paused.put("message", String.format(Locale.ROOT, "paused: the origin budget leaves "
            + "%.1f ids/s for the preload (ceiling)", ceiling));
        paused.put("rateInUse", "0");
        paused.put("updatedAt", Long.toString(clock.millis()));
        if (!update(token, IF_RUNNING, paused) || await(pollInterval.toNanos())) {
          return;
        }
        continue;
      }
      if (ceiling == null) {
        aimd = null;
        pacer.rate(job.rate());
        rateInUse = job.rate();
      } else {
        double cap = Math.min(job.rate(), ceiling);
        if (aimd == null) {
          aimd = new AimdRate(cap, System::nanoTime);
          log.info("cache '{}': preloading {} under an origin budget: at most {} ids/s, "
              + "starting at {}", cache.name(), jobKey, cap, aimd.rate());
        } else {
          aimd.ceiling(cap);
        }
        pacer.rate(aimd.rate());
        rateInUse = aimd.rate();
      }
      int n = (int) Math.min(aimd == null ? job.batchSize() : adaptiveBatch(job, aimd),
          end - job.cursor());
      List<String> ids = redis.lrange(idsKey, job.cursor(), job.cursor() + n - 1);
      if (ids.isEmpty()) {
        end = job.cursor(); // the list shrank under us
        break;
      }
      Outcome outcome = load(token, IF_RUNNING, "message", job.cursor(), ids, pacer, null, aimd);
      if (outcome == null) {
        return; // closing, or the job is no longer ours: the batch is left to the next owner
      }
      job = job.advance(outcome.held(), outcome.failed());
      count(loadedIds, outcome.held());
      count(failedIds, outcome.failed());
      Map<String, String> progress = job.progressFields(pod, clock.millis());
      if (outcome.waited() || aimd != null) {
        progress.put("message", aimd == null ? "" : String.format(Locale.ROOT,
            "preloading under the origin budget at %.1f of at most %.1f ids/s (%s)", aimd.rate(),
            aimd.ceiling(), aimd.last()));
      }
      if (aimd != null) {
        pacer.rate(aimd.rate());
        rateInUse = aimd.rate();
      }
      progress.put("rateInUse", String.format(Locale.ROOT, "%.1f", rateInUse));
      if (!update(token, IF_RUNNING, progress)) {
        return;
      }
    }
    job = job.done();
    rateInUse = 0;
    Map<String, String> done = job.progressFields(pod, clock.millis());
    done.put("rateInUse", "0");
    String message = "loaded " + job.filled() + " of " + job.target() + " ids, " + job.errors()
        + " errors";
    if (end < job.target()) {
      message += "; the id list held only " + end + " ids";
    }
    done.put("message", message);
    if (update(token, IF_RUNNING, done)) {
      log.info("cache '{}': warm job {} done: {}", cache.name(), jobKey, message);
    }
  }

  /**
   * Whether {@code fields} are those of a {@code Done} job whose ids are to be kept warm now: the
   * operator's {@code keepWarmUntil} (epoch millis) is in the future and the last pass
   * ({@code keptWarmAt}) is at least {@link #keepWarmPeriod} ago.
   */
  private boolean keepWarmDue(Map<String, String> fields) {
    if (WarmJobState.named(fields.get("state")) != WarmJobState.Done) {
      return false;
    }
    long now = clock.millis();
    return millis(fields.get("keepWarmUntil")) > now
        && millis(fields.get("keptWarmAt")) + keepWarmPeriod.toMillis() <= now;
  }

  /**
   * One keep-warm pass over a {@code Done} job's ids: every id whose L2 entry is missing or has
   * less than {@link #keepWarmMargin} left is reloaded (at the job's rate, waiting out origin and
   * L2 failures as the preload does); then {@code keptWarmAt}, {@code keptWarm} (ids reloaded by
   * keep-warm so far) and {@code keepWarm} (what the pass did) are recorded.
   */
  private void keepWarm(String token) {
    RedisClusterCommands<String, String> redis = connection.sync();
    Map<String, String> fields = redis.hgetall(jobKey);
    WarmJob job;
    try {
      job = WarmJob.parse(fields);
    } catch (WarmJob.InvalidJobException e) {
      return; // a Done job is not failed afterwards; the operator sees the field in its own reads
    }
    if (!keepWarmDue(fields)) {
      return;
    }
    long end = job.end(redis.llen(idsKey));
    long started = clock.millis();
    Pacer pacer = new Pacer(job.rate(), System::nanoTime, this::await);
    long reloaded = 0;
    for (long cursor = 0; cursor < end; cursor += job.batchSize()) {
      if (closing || lockLost) {
        return;
      }
      List<String> ids = redis.lrange(idsKey, cursor, Math.min(end, cursor + job.batchSize()) - 1);
      if (ids.isEmpty()) {
        break;
      }
      Outcome outcome = load(token, IF_DONE, "keepWarm", cursor, ids, pacer, keepWarmMargin,
          null);
      if (outcome == null) {
        return;
      }
      reloaded += outcome.reloaded();
      count(keptWarmIds, outcome.reloaded());
      if (outcome.reloaded() > 0 && !update(token, IF_DONE, Map.of("keepWarm", String.format(
          Locale.ROOT, "pass from %s: %d ids reloaded so far, at id %d of %d",
          Instant.ofEpochMilli(started), reloaded, cursor + ids.size(), end)))) {
        return; // removed or reopened by the operator: no more origin reads for it
      }
    }
    Map<String, String> done = new LinkedHashMap<>();
    done.put("keptWarmAt", Long.toString(clock.millis()));
    done.put("keptWarm", Long.toString(millis(fields.get("keptWarm")) + reloaded));
    done.put("keepWarm", String.format(Locale.ROOT, "pass from %s reloaded %d of %d ids that had "
        + "less than %d s of L2 TTL left", Instant.ofEpochMilli(started), reloaded, end,
        keepWarmMargin.toSeconds()));
    if (update(token, IF_DONE, done) && reloaded > 0) {
      log.info("cache '{}': warm job {} kept warm: {} of {} ids reloaded", cache.name(), jobKey,
          reloaded, end);
    }
  }

  /** Whether the job's {@code keepWarmUntil} is still in the future; true if Valkey is down. */
  private boolean keepWarmWanted() {
    try {
      return millis(connection.sync().hget(jobKey, "keepWarmUntil")) > clock.millis();
    } catch (RuntimeException e) {
      return true; // checked again after the next wait
    }
  }

  /**
   * The job's {@code ceiling} (ids per second the origin budget leaves for the preload, written by
   * the operator), or null when absent or malformed (then the job's fixed {@code rate} applies).
   */
  static Double ceiling(String value) {
    if (value == null || value.isBlank()) {
      return null;
    }
    try {
      double ceiling = Double.parseDouble(value.trim());
      return Double.isFinite(ceiling) && ceiling >= 0 ? ceiling : null;
    } catch (NumberFormatException e) {
      return null;
    }
  }

  /**
   * Batch size under an origin budget: a twentieth of a second at the ceiling, so that the
   * adaptive rate gets a latency sample several times a second even at its starting rate.
   */
  private static int adaptiveBatch(WarmJob job, AimdRate aimd) {
    return (int) Math.max(1, Math.min(job.batchSize(), Math.round(aimd.ceiling() / 20)));
  }

  /** A non-negative decimal field, or 0 when absent or malformed. */
  private static long millis(String value) {
    if (value == null) {
      return 0;
    }
    try {
      return Math.max(0, Long.parseLong(value.trim()));
    } catch (NumberFormatException e) {
      return 0;
    }
  }

  /**
   * What became of one batch: {@code held} ids are in L2, {@code failed} never will be (invalid
   * ids, values L2 refused to hold); {@code waited} if the batch waited for the origin or L2;
   * {@code reloaded} ids were read from the origin to keep them warm.
   */
  record Outcome(int held, int failed, boolean waited, int reloaded) {}

  /**
   * Loads one batch at the job's rate, waiting for the origin and L2 as long as they fail: the
   * same ids are retried after a bounded exponential back-off, and meanwhile the job's
   * {@code message} says what it is waiting for. Invalid ids are counted as failed and the rest
   * are loaded. The origin is not called while L2 does not answer.
   *
   * @param states the states the job may be in for this worker to write to it
   * @param messageField the job field that says what the batch waits for
   * @param cursor the index of the batch's first id, for messages
   * @param refreshBelow null to fill what L2 lacks; else only the ids whose entry is missing or
   *     has less than this left are loaded (keep-warm)
   * @param aimd the adaptive rate under an origin budget, or null for the job's fixed rate: with
   *     one, only the ids L2 lacks (read from the origin) are paced, and the origin's latency and
   *     errors on them adjust it
   * @return the outcome, or null if the worker closed or the job is no longer this worker's
   */
  private Outcome load(String token, String states, String messageField, long cursor,
      List<String> ids, Pacer pacer, Duration refreshBelow, AimdRate aimd) {
    List<String> valid = new ArrayList<>(ids.size());
    for (String id : ids) {
      if (isValidId(id, cache.maxIdBytes())) {
        valid.add(id);
      }
    }
    int invalid = ids.size() - valid.size();
    if (invalid > 0) {
      log.debug("cache '{}': {} invalid ids in the preload batch at {} counted as errors",
          cache.name(), invalid, cursor);
    }
    if (valid.isEmpty()) {
      return new Outcome(0, invalid, false, 0);
    }
    long delayNanos = backoffInitial.toNanos();
    boolean waited = false;
    int shortfalls = 0;
    Map<String, String> unrecorded = null; // a wait Valkey could not be told about yet
    while (true) {
      if (closing || lockLost) {
        return null;
      }
      String problem;
      List<Long> ttls = null;
      RuntimeException l2Error = null;
      try {
        ttls = ttls(valid);
      } catch (RuntimeException e) {
        l2Error = e;
      }
      if (l2Error == null && unrecorded != null) {
        // Valkey is back: before the origin is read, make sure the job is still ours.
        if (!update(token, states, unrecorded)) {
          return null;
        }
        unrecorded = null;
      }
      if (l2Error != null) {
        problem = "waiting for L2, which did not answer (" + l2Error + "); the origin is not "
            + "read for ids that cannot be written";
      } else {
        List<String> todo = valid;
        if (refreshBelow != null) {
          todo = new ArrayList<>();
          for (int i = 0; i < valid.size(); i++) {
            long ttl = ttls.get(i);
            if (ttl == -2 || (ttl >= 0 && ttl < refreshBelow.toMillis())) {
              todo.add(valid.get(i));
            }
          }
          if (todo.isEmpty()) {
            return new Outcome(valid.size(), invalid, waited, 0);
          }
        }
        int cold = todo.size();
        if (aimd != null) {
          cold = 0;
          for (Long ttl : ttls) {
            cold += ttl == -2 ? 1 : 0;
          }
        }
        try {
          if (cold > 0) {
            pacer.acquire(cold);
          }
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          return null;
        }
        if (closing) {
          return null;
        }
        long started = System.nanoTime();
        try {
          int held = refreshBelow == null ? cache.fillL2(todo) : cache.fillL2(todo, refreshBelow);
          if (aimd != null && 2 * cold >= todo.size()) {
            // Batches mostly held by L2 say little about the origin: they would lower the baseline.
            aimd.succeeded(System.nanoTime() - started);
            pacer.rate(aimd.rate());
          }
          int reloaded = refreshBelow == null ? 0 : todo.size();
          int missing = todo.size() - held;
          if (missing == 0) {
            return new Outcome(valid.size(), invalid, waited, reloaded);
          }
          if (++shortfalls >= ATTEMPTS) {
            // L2 answers but keeps refusing these entries (larger than maxValueBytes, or not
            // encodable): they count as errors.
            log.warn("cache '{}': {} of {} ids of the preload batch at {} still not in L2 after {} "
                + "attempts while L2 answers; counting them as errors", cache.name(), missing,
                todo.size(), cursor, ATTEMPTS);
            return new Outcome(valid.size() - missing, invalid + missing, waited, reloaded);
          }
          problem = "waiting for L2: " + missing + " of " + todo.size() + " writes failed";
        } catch (IllegalStateException e) {
          throw e; // the cache is closed
        } catch (RuntimeException e) {
          if (aimd != null) {
            aimd.failed();
            pacer.rate(aimd.rate());
          }
          problem = "waiting for the origin: " + originFailure(e);
        }
      }
      waited = true;
      String message = String.format(Locale.ROOT, "%s; retrying the %d ids at cursor %d in %.1f s",
          bounded(problem), valid.size(), cursor, delayNanos / 1e9);
      log.info("cache '{}': warm job {}: {}", cache.name(), jobKey, message);
      Map<String, String> fields = new LinkedHashMap<>();
      fields.put(messageField, message);
      fields.put("updatedAt", Long.toString(clock.millis()));
      try {
        if (!update(token, states, fields)) {
          return null;
        }
        unrecorded = null;
      } catch (RuntimeException e) {
        // Valkey is down: keep the batch and wait; the job is checked again before the origin is.
        log.debug("cache '{}': could not record the wait in {}", cache.name(), jobKey, e);
        unrecorded = fields;
      }
      if (await(delayNanos)) {
        return null;
      }
      if (refreshBelow != null && !keepWarmWanted()) {
        return null; // the operator stopped asking while the pass waited
      }
      delayNanos = Math.min(2 * delayNanos, backoffMax.toNanos());
    }
  }

  /**
   * Asks L2, over this worker's connection, for the remaining TTL of each id's value key (one
   * pipelined {@code PTTL} each; -2 = missing): the cheap check that L2 answers before the origin
   * is read for a batch, and what keep-warm reloads.
   *
   * @throws RuntimeException if L2 did not answer within {@link #L2_CHECK_TIMEOUT}
   */
  private List<Long> ttls(List<String> ids) {
    RedisClusterAsyncCommands<String, String> async = connection.async();
    List<RedisFuture<Long>> replies = new ArrayList<>(ids.size());
    for (String id : ids) {
      replies.add(async.pttl(keys.valueKey(id)));
    }
    if (!LettuceFutures.awaitAll(L2_CHECK_TIMEOUT, replies.toArray(RedisFuture[]::new))) {
      throw new IllegalStateException("no reply within " + L2_CHECK_TIMEOUT);
    }
    List<Long> ttls = new ArrayList<>(ids.size());
    for (RedisFuture<Long> reply : replies) {
      ttls.add(reply.toCompletableFuture().getNow(-2L));
    }
    return ttls;
  }

  /**
   * Whether the cache accepts {@code id}: non-empty, at most {@code maxIdBytes} long in UTF-8,
   * well-formed Unicode.
   */
  static boolean isValidId(String id, int maxIdBytes) {
    return id != null && !id.isEmpty() && KeySpace.fitsUtf8(id, maxIdBytes)
        && KeySpace.unpairedSurrogate(id) < 0;
  }

  /**
   * What an origin failure of {@code fillL2} says: the message of the cache's
   * {@code CacheLoadException}, which names the id and the origin's exception; the exception
   * itself if it has no message.
   */
  private static String originFailure(RuntimeException e) {
    return e.getMessage() != null ? e.getMessage() : e.toString();
  }

  private static String bounded(String text) {
    return text.length() <= 300 ? text : text.substring(0, 300) + "...";
  }

  /** Writes {@code fields} if the lock is ours and the job in an allowed state. */
  private boolean update(String token, String allowedStates, Map<String, String> fields) {
    List<String> args = new ArrayList<>(3 + 2 * fields.size());
    args.add(token);
    args.add(Long.toString(JOB_TTL.toMillis()));
    args.add(allowedStates);
    fields.forEach((k, v) -> {
      args.add(k);
      args.add(v);
    });
    Long result = connection.sync().eval(UPDATE, ScriptOutputType.INTEGER, updateKeys,
        args.toArray(String[]::new));
    if (result == null || result != 1L) {
      log.info("cache '{}': stopping work on warm job {}: {}", cache.name(), jobKey,
          result != null && result == 0L ? "the lock is held by another pod"
              : "the job was removed or finished by someone else");
      lockLost = true;
      return false;
    }
    return true;
  }

  private void renew(String token) {
    try {
      if (!lock.renew(connection.sync(), token)) {
        lockLost = true;
      }
    } catch (RuntimeException e) {
      // Transient: the next renewal or the fenced update will tell whether the lock is still ours.
      log.debug("cache '{}': warm job lock renewal failed", cache.name(), e);
    }
  }

  /** The allowed-states argument of {@link #UPDATE}: {@code ,<state>,<state>,}. */
  private static String allowed(WarmJobState... states) {
    StringBuilder out = new StringBuilder(",");
    for (WarmJobState state : states) {
      out.append(state.name()).append(',');
    }
    return out.toString();
  }

  private static boolean isFinished(String state) {
    WarmJobState known = WarmJobState.named(state);
    return known != null && !known.isActive();
  }

  /** Waits up to {@code nanos}; returns whether the worker is closing. */
  private boolean await(long nanos) {
    try {
      return stop.await(nanos, TimeUnit.NANOSECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return true;
    }
  }
}
