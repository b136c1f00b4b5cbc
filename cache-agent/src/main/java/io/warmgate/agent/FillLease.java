package io.warmgate.agent;

import io.github.resilience4j.circuitbreaker.CircuitBreaker;
import io.warmgate.agent.l2.KeySpace;
import io.warmgate.agent.l2.L2Store;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import java.util.function.ToIntFunction;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Lets one pod load an id that L2 lacks while the other pods that miss it at the same time wait
 * for its value to appear in L2: a lease in the manner of memcache's, so that a fleet that misses
 * one key together reads the origin once instead of once per pod, however slow the origin is.
 *
 * <p>For the missed ids of a batch the pod sends {@code SET <fill key> <token> NX PX <leaseTtl>}
 * per id and, right behind them on the same connection, one {@code MGET} of the ids' value and
 * lease keys (on a cluster an id's value and lease keys share a slot, see {@link KeySpace}: Lettuce
 * sends both to that slot's primary over one connection and keeps them in one {@code MGET}, so the
 * look sees the lease just taken, and the holder's value write lands before its release). Then,
 * per id:
 * <ul>
 *   <li><b>waited</b>: L2 now holds a readable, unexpired value (another pod's fill landed since
 *       the lookup's read): it is served from L2; a lease just won for it is released.
 *   <li><b>won</b>: the lease is ours: the id is loaded from the origin (one call with the other
 *       ids of the batch that go there), written to L2, and then the lease is deleted if it still
 *       holds our token, also when the origin failed, so that a waiter takes over at once. While
 *       the load runs, the {@link LeaseRenewer} keeps the lease alive, for at most the origin's
 *       timeout after its call began.
 *   <li>Another pod holds the lease: L2 is polled, value and lease keys of all waiting ids in one
 *       {@code MGET}, 5 ms after the lease, at intervals doubling up to 25 ms and, once the wait is
 *       long, up to a tenth of the time waited (at most 200 ms), until the value appears
 *       (<b>waited</b>), or the lease is gone without a value: its holder failed, or died and
 *       stopped renewing. Then the waiter asks for the lease itself, as above: one waiter wins it
 *       and reads the origin (<b>lapsed</b>), the others find its lease and go on waiting, so a
 *       failed holder costs one more read, never one per waiter. A waiter that is still waiting
 *       {@code fillWait} after it asked reads the origin itself (<b>timeout</b>).
 *   <li><b>skipped</b>: the lookup's L2 read failed, the L2 breaker is not closed, or the lease
 *       command failed: no wait, the origin is read at once. A poll that fails while the breaker
 *       stays closed (one reply late under load) is sent again at the next interval
 *       (<b>poll retried</b>); once the breaker opens, the waiters read the origin.
 * </ul>
 * So a lookup waits for a live holder up to {@code fillWait} (by default the origin's timeout: no
 * longer than its own read could take), for a dead one about one lease TTL, for a failed one not
 * at all, and never when L2 is slow or down. A wait holds no thread: a poll is a timer task that
 * sends one command; replies are handled where L2 replies are, and origin loads run on the
 * cache's executor.
 *
 * <p>A background fill ({@link TieredCache#fillL2}) takes the same leases ({@link #claim}), so a
 * preload and the lookups of other pods read an id once between them; it waits for leases held
 * elsewhere on its own thread ({@link #awaitFills}), the same way and as long.
 */
final class FillLease<V> {

  /** The cache's side of one batch of ids that L2 did not hold. */
  interface Misses<V> {
    /** Whether {@code entry}, read from L2, may be served: unexpired by the cache's clock. */
    boolean servable(L2Tier.Entry<V> entry);

    /** Serves {@code id} from {@code entry}, which another pod's load wrote to L2; fills L1. */
    void serve(String id, L2Tier.Entry<V> entry);

    /**
     * Loads {@code ids} with one origin call on the cache's executor, serves and writes them, with
     * {@link Held#calling} just before the call and {@link Held#release} after the writes (also
     * when the load failed or could not start). Returns at once.
     */
    void load(List<String> ids, Held held);
  }

  /** The leases a load holds: renewed from {@link #calling}, released by {@link #release}. */
  interface Held {
    /** A load that holds no lease. */
    Held NONE = new Held() {
      @Override
      public void calling() {
      }

      @Override
      public void release() {
      }
    };

    /** The origin call begins: renewals end at most the origin's timeout from now. */
    void calling();

    /** Stops renewing and deletes each lease that still holds this load's token. */
    void release();
  }

  /** Delay of the first poll; each later one doubles it, up to {@link #MAX_POLL_NANOS}. */
  static final long FIRST_POLL_NANOS = TimeUnit.MILLISECONDS.toNanos(5);
  static final long MAX_POLL_NANOS = TimeUnit.MILLISECONDS.toNanos(25);
  /** Longest poll interval of a long wait: one poll per tenth of the time waited, up to this. */
  static final long MAX_LONG_POLL_NANOS = TimeUnit.MILLISECONDS.toNanos(200);

  private static final Logger log = LoggerFactory.getLogger(FillLease.class);
  /** Runs a due poll on the timer thread: it only sends a command. */
  private static final Executor TIMER_THREAD = Runnable::run;

  private final KeySpace keys;
  private final L2Store store;
  private final L2Tier<V> l2;
  private final long leaseTtlMillis;
  private final long fillWaitNanos;
  private final LeaseRenewer renewer;
  private final String tokenPrefix;
  private final CacheMetrics metrics;

  FillLease(KeySpace keys, L2Store store, L2Tier<V> l2, Duration leaseTtl, Duration fillWait,
      LeaseRenewer renewer, String podName, CacheMetrics metrics) {
    this.keys = keys;
    this.store = store;
    this.l2 = l2;
    this.leaseTtlMillis = leaseTtl.toMillis();
    this.fillWaitNanos = fillWait.toNanos();
    this.renewer = renewer;
    this.tokenPrefix = podName + "/";
    this.metrics = metrics;
  }

  /**
   * Settles each of {@code ids}, which the lookup's L2 read did not find or found expired: by
   * loading it here or by serving what another pod's load writes to L2. Returns at once.
   *
   * @param answered false when the lookup's L2 read failed: every id goes to the origin at once
   */
  void fill(List<String> ids, boolean answered, Misses<V> misses) {
    if (!answered || store.breakerState() != CircuitBreaker.State.CLOSED) {
      skip(ids, misses);
      return;
    }
    lease(ids, System.nanoTime() + fillWaitNanos, false, misses);
  }

  /**
   * Asks for the lease of each of {@code ids} and looks at L2 behind it; settles each id by what
   * it finds ({@link #leased}).
   *
   * @param takeover whether the ids' previous leases went without a value: a lease won now
   *     counts as lapsed
   */
  private void lease(List<String> ids, long deadline, boolean takeover, Misses<V> misses) {
    byte[] token = newToken();
    List<CompletableFuture<Boolean>> leases = new ArrayList<>(ids.size());
    CompletableFuture<?>[] all = new CompletableFuture<?>[ids.size() + 1];
    for (int i = 0; i < ids.size(); i++) {
      CompletableFuture<Boolean> lease =
          store.setIfAbsent(keys.fillKey(ids.get(i)), token, leaseTtlMillis);
      leases.add(lease);
      all[i] = lease;
    }
    // Behind the SETs on the same connection (on a cluster: the same connection to each key's
    // primary), so it sees what they did.
    CompletableFuture<List<L2Tier.Fill<V>>> look = l2.readFill(ids);
    all[ids.size()] = look;
    CompletableFuture.allOf(all).whenComplete((ignored, error) -> {
      try {
        leased(ids, leases, look, token, deadline, takeover, misses);
      } catch (Throwable t) {
        log.warn("cache '{}': fill lease of {} ids failed; loading them from the origin",
            keys.cacheName(), ids.size(), t);
        misses.load(ids, held(ids, token));
      }
    });
  }

  private byte[] newToken() {
    return (tokenPrefix + UUID.randomUUID()).getBytes(StandardCharsets.UTF_8);
  }

  /** The leases of {@code ids} that {@code token} holds, renewed from now until released. */
  private Held held(List<String> ids, byte[] token) {
    LeaseRenewer.Hold hold = renewer.hold(fillKeys(ids), token);
    return new Held() {
      @Override
      public void calling() {
        hold.calling();
      }

      @Override
      public void release() {
        hold.end();
        FillLease.this.release(ids, token);
      }
    };
  }

  private List<String> fillKeys(List<String> ids) {
    List<String> fillKeys = new ArrayList<>(ids.size());
    for (String id : ids) {
      fillKeys.add(keys.fillKey(id));
    }
    return fillKeys;
  }

  /**
   * What a background fill ({@link TieredCache#fillL2}) may do with the ids it lacks: the ones to
   * read from the origin now, the leases among them that are its own (renewed by {@code hold}
   * until {@link #release(Claim, Duration) released} once written), the entries another pod's
   * fill already wrote, and the ids whose lease another pod holds, to {@link #awaitFills await}.
   */
  record Claim<V>(List<String> load, List<String> won, byte[] token, LeaseRenewer.Hold hold,
      Map<String, L2Tier.Entry<V>> filled, List<String> awaited) {

    /** Every id goes to the origin: no lease is taken. */
    static <V> Claim<V> none(List<String> ids) {
      return new Claim<>(List.copyOf(ids), List.of(), null, null, Map.of(), List.of());
    }
  }

  /**
   * The end of a wait for other pods' fills: the entries they wrote, the ids left to read, and
   * how many ids the fill read itself on the way, after taking over their leases.
   */
  record Waited<V>(Map<String, L2Tier.Entry<V>> filled, List<String> load, int read) {}

  /**
   * Takes the fill lease of each of {@code ids} for a background fill, blocking the calling thread
   * at most {@code timeout} for L2's answer: an id another pod's fill already wrote is done, one
   * whose lease another pod holds is to be waited for, the others (lease won, or L2 did not
   * answer) are to be read here, now: the won leases are renewed from now for up to the origin's
   * timeout.
   *
   * @param wanted whether an entry read from L2 will do, or must be loaded again
   */
  Claim<V> claim(List<String> ids, Predicate<L2Tier.Entry<V>> wanted, Duration timeout) {
    // Not skipped while the lookups' breaker is open: background commands bypass it.
    return claim(ids, wanted, timeout, false);
  }

  private Claim<V> claim(List<String> ids, Predicate<L2Tier.Entry<V>> wanted, Duration timeout,
      boolean takeover) {
    byte[] token = newToken();
    List<CompletableFuture<Boolean>> leases = new ArrayList<>(ids.size());
    for (String id : ids) {
      leases.add(store.setIfAbsent(keys.fillKey(id), token, leaseTtlMillis, timeout));
    }
    List<L2Tier.Fill<V>> fills = await(l2.readFill(ids, timeout), timeout);
    List<Boolean> replies = new ArrayList<>(ids.size());
    for (CompletableFuture<Boolean> lease : leases) {
      replies.add(await(lease, timeout));
    }
    Sorted<V> sorted = sort(ids, replies, fills, wanted, takeover);
    if (!sorted.releaseNow().isEmpty()) {
      release(sorted.releaseNow(), token, timeout);
    }
    LeaseRenewer.Hold hold = null;
    if (!sorted.won().isEmpty()) {
      hold = renewer.hold(fillKeys(sorted.won()), token);
      hold.calling();
    }
    return new Claim<>(sorted.load(), sorted.won(), token, hold, sorted.served(), sorted.awaited());
  }

  /**
   * Waits, blocking the calling thread, for the fills of {@code ids} that other pods' leases hold,
   * polling L2 as lookups do, for up to {@code fillWait}. An id whose lease goes without a value
   * is taken over as a lookup's is: won, it is read at once with {@code read} (which loads and
   * writes ids, returning how many it wrote) and its lease released; lost, it is waited for
   * further. An id still held at the deadline, or whose polls went unanswered until then, is to
   * be read by the caller.
   *
   * @throws RuntimeException what {@code read} throws, after releasing the leases it read under
   */
  Waited<V> awaitFills(List<String> ids, Predicate<L2Tier.Entry<V>> wanted, Duration timeout,
      ToIntFunction<List<String>> read) {
    Map<String, L2Tier.Entry<V>> filled = new LinkedHashMap<>();
    List<String> load = new ArrayList<>();
    int readHere = 0;
    List<String> wait = ids;
    long start = System.nanoTime();
    long deadline = start + fillWaitNanos;
    long delay = FIRST_POLL_NANOS;
    while (!wait.isEmpty()) {
      long left = deadline - System.nanoTime();
      if (left <= 0) {
        metrics.fillTimeout.increment(wait.size());
        load.addAll(wait);
        break;
      }
      try {
        TimeUnit.NANOSECONDS.sleep(Math.min(delay, left));
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        load.addAll(wait);
        break;
      }
      delay = nextPoll(delay, System.nanoTime() - start);
      List<L2Tier.Fill<V>> polled = await(l2.readFill(wait, timeout), timeout);
      if (polled == null) {
        // A slow or failed reply of a background poll (which the lookups' breaker does not
        // stop): poll again until the wait's deadline, then read the ids here.
        metrics.fillPollRetried.increment(wait.size());
        continue;
      }
      Polled<V> seen = sortPolled(wait, polled, wanted);
      filled.putAll(seen.served());
      List<String> still = seen.still();
      List<String> lapsed = seen.lapsed();
      if (!lapsed.isEmpty()) {
        // The holder failed or died: one waiter takes over, the others wait on its lease.
        Claim<V> taken = claim(lapsed, wanted, timeout, true);
        filled.putAll(taken.filled());
        still.addAll(taken.awaited());
        try {
          readHere += read.applyAsInt(taken.load());
        } finally {
          release(taken, timeout);
        }
      }
      wait = still;
    }
    return new Waited<>(filled, load, readHere);
  }

  /**
   * The next poll interval after {@code delayNanos}, {@code waitedNanos} into a wait: doubling up
   * to {@link #MAX_POLL_NANOS}, then a tenth of the time waited up to {@link #MAX_LONG_POLL_NANOS},
   * so that a long wait for a slow origin adds at most a tenth to it and polls L2 little.
   */
  static long nextPoll(long delayNanos, long waitedNanos) {
    long cap = Math.max(MAX_POLL_NANOS, Math.min(MAX_LONG_POLL_NANOS, waitedNanos / 10));
    return Math.min(2 * delayNanos, cap);
  }

  /** The value of {@code future} within {@code timeout}; null if it failed or took longer. */
  private static <T> T await(CompletableFuture<T> future, Duration timeout) {
    try {
      return future.get(timeout.toNanos(), TimeUnit.NANOSECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return null;
    } catch (Exception e) {
      return null;
    }
  }

  /**
   * Where each id of one lease request stands after its {@code SET NX} and the look behind it.
   *
   * @param served the ids L2 holds a wanted entry for (another pod's fill landed)
   * @param load the ids to read from the origin now: lease won, or lease or look failed, or the
   *     lease lapsed between the SET and the look
   * @param won the ids among {@code load} whose lease is ours
   * @param awaited the ids whose lease another pod holds
   * @param releaseNow the leases won for ids that turned out {@code served}
   */
  private record Sorted<V>(Map<String, L2Tier.Entry<V>> served, List<String> load,
      List<String> won, List<String> awaited, List<String> releaseNow) {}

  /**
   * Sorts {@code ids} by their lease replies and the look behind them, counting each outcome;
   * shared by lookups (asynchronous) and background fills (blocking).
   *
   * @param leases per id: whether the lease was won, null when the command failed
   * @param fills the look, or null when it failed
   * @param takeover whether the ids' previous leases went without a value: a lease won now
   *     counts as lapsed
   */
  private Sorted<V> sort(List<String> ids, List<Boolean> leases, List<L2Tier.Fill<V>> fills,
      Predicate<L2Tier.Entry<V>> servable, boolean takeover) {
    Sorted<V> sorted = new Sorted<>(new LinkedHashMap<>(), new ArrayList<>(ids.size()),
        new ArrayList<>(ids.size()), new ArrayList<>(), new ArrayList<>());
    for (int i = 0; i < ids.size(); i++) {
      String id = ids.get(i);
      Boolean lease = leases.get(i);
      boolean held = Boolean.TRUE.equals(lease);
      L2Tier.Fill<V> fill = fills == null ? null : fills.get(i);
      if (fill != null && fill.entry() != null && servable.test(fill.entry())) {
        metrics.fillWaited.increment();
        sorted.served().put(id, fill.entry());
        if (held) {
          sorted.releaseNow().add(id);
        }
      } else if (held) {
        (takeover ? metrics.fillLapsed : metrics.fillWon).increment();
        sorted.won().add(id);
        sorted.load().add(id);
      } else if (lease == null || fill == null) {
        metrics.fillSkipped.increment();
        sorted.load().add(id);
      } else if (!fill.leased()) {
        // Gone between our SET and our look: expired or deleted just then; not chased again.
        metrics.fillLapsed.increment();
        sorted.load().add(id);
      } else {
        sorted.awaited().add(id);
      }
    }
    return sorted;
  }

  private void leased(List<String> ids, List<CompletableFuture<Boolean>> leases,
      CompletableFuture<List<L2Tier.Fill<V>>> look, byte[] token, long deadline, boolean takeover,
      Misses<V> misses) {
    List<L2Tier.Fill<V>> fills = look.isCompletedExceptionally() ? null : look.join();
    List<Boolean> replies = new ArrayList<>(ids.size());
    for (CompletableFuture<Boolean> lease : leases) {
      replies.add(lease.isCompletedExceptionally() ? null : lease.join());
    }
    Sorted<V> sorted = sort(ids, replies, fills, misses::servable, takeover);
    sorted.served().forEach(misses::serve);
    if (!sorted.releaseNow().isEmpty()) {
      release(sorted.releaseNow(), token);
    }
    if (!sorted.load().isEmpty()) {
      misses.load(sorted.load(), sorted.won().isEmpty() ? Held.NONE : held(sorted.won(), token));
    }
    if (!sorted.awaited().isEmpty()) {
      long started = deadline - fillWaitNanos;
      schedule(sorted.awaited(), deadline, takeover ? nextPoll(FIRST_POLL_NANOS, System.nanoTime() - started)
          : FIRST_POLL_NANOS, misses);
    }
  }

  /** Polls for {@code ids} after {@code delayNanos}, or at the deadline if that comes first. */
  private void schedule(List<String> ids, long deadline, long delayNanos, Misses<V> misses) {
    long wait = Math.max(0, Math.min(delayNanos, deadline - System.nanoTime()));
    CompletableFuture.delayedExecutor(wait, TimeUnit.NANOSECONDS, TIMER_THREAD)
        .execute(() -> poll(ids, deadline, delayNanos, misses));
  }

  private void poll(List<String> ids, long deadline, long delayNanos, Misses<V> misses) {
    try {
      if (store.breakerState() != CircuitBreaker.State.CLOSED) {
        skip(ids, misses);
        return;
      }
      l2.readFill(ids).whenComplete((fills, error) -> {
        try {
          polled(ids, fills, error, deadline, delayNanos, misses);
        } catch (Throwable t) {
          log.warn("cache '{}': waiting for the fill of {} ids failed; loading them from the "
              + "origin", keys.cacheName(), ids.size(), t);
          misses.load(ids, Held.NONE);
        }
      });
    } catch (Throwable t) {
      log.warn("cache '{}': could not poll L2 for {} ids; loading them from the origin",
          keys.cacheName(), ids.size(), t);
      misses.load(ids, Held.NONE);
    }
  }

  private void polled(List<String> ids, List<L2Tier.Fill<V>> fills, Throwable error, long deadline,
      long delayNanos, Misses<V> misses) {
    if (error != null) {
      // Counted and logged by the store's listener. One slow reply under load is not L2 down (the
      // breaker decides that): the waiters poll again rather than all read the origin at once.
      if (store.breakerState() == CircuitBreaker.State.CLOSED
          && deadline - System.nanoTime() > 0) {
        metrics.fillPollRetried.increment(ids.size());
        long waited = System.nanoTime() - (deadline - fillWaitNanos);
        schedule(ids, deadline, nextPoll(delayNanos, waited), misses);
      } else {
        skip(ids, misses);
      }
      return;
    }
    Polled<V> seen = sortPolled(ids, fills, misses::servable);
    seen.served().forEach(misses::serve);
    List<String> still = seen.still();
    List<String> lapsed = seen.lapsed();
    if (!still.isEmpty()) {
      if (System.nanoTime() - deadline >= 0) {
        metrics.fillTimeout.increment(still.size());
        misses.load(still, Held.NONE);
      } else {
        long waited = System.nanoTime() - (deadline - fillWaitNanos);
        schedule(still, deadline, nextPoll(delayNanos, waited), misses);
      }
    }
    if (!lapsed.isEmpty()) {
      // The holder failed or died: one waiter takes over, the others wait on its lease.
      lease(lapsed, deadline, true, misses);
    }
  }

  /**
   * What one poll of waiting ids found.
   *
   * @param served the ids L2 now holds a wanted entry for
   * @param lapsed the ids whose lease is gone without a value: its holder failed or died
   * @param still the ids whose lease is still held
   */
  private record Polled<V>(Map<String, L2Tier.Entry<V>> served, List<String> lapsed,
      List<String> still) {}

  /** Sorts waiting {@code ids} by what a poll read for them, counting each served one. */
  private Polled<V> sortPolled(List<String> ids, List<L2Tier.Fill<V>> fills,
      Predicate<L2Tier.Entry<V>> servable) {
    Polled<V> polled = new Polled<>(new LinkedHashMap<>(), new ArrayList<>(), new ArrayList<>());
    for (int i = 0; i < ids.size(); i++) {
      L2Tier.Fill<V> fill = fills.get(i);
      if (fill.entry() != null && servable.test(fill.entry())) {
        metrics.fillWaited.increment();
        polled.served().put(ids.get(i), fill.entry());
      } else if (!fill.leased()) {
        polled.lapsed().add(ids.get(i));
      } else {
        polled.still().add(ids.get(i));
      }
    }
    return polled;
  }

  private void skip(List<String> ids, Misses<V> misses) {
    metrics.fillSkipped.increment(ids.size());
    misses.load(ids, Held.NONE);
  }

  /** Deletes each id's lease if it still holds {@code token}; failures only let it expire. */
  private void release(List<String> ids, byte[] token) {
    for (String id : ids) {
      store.deleteIfEquals(keys.fillKey(id), token);
    }
  }

  /**
   * Ends a background fill's {@code claim}: stops renewing its leases and deletes each that still
   * holds its token, bounded by {@code timeout} and awaited, so that the fill's commands are over
   * when it returns instead of queueing in front of the lookups that follow.
   */
  void release(Claim<V> claim, Duration timeout) {
    if (claim.hold() != null) {
      claim.hold().end();
    }
    if (!claim.won().isEmpty()) {
      release(claim.won(), claim.token(), timeout);
    }
  }

  private void release(List<String> ids, byte[] token, Duration timeout) {
    List<CompletableFuture<Boolean>> deletes = new ArrayList<>(ids.size());
    for (String id : ids) {
      deletes.add(store.deleteIfEquals(keys.fillKey(id), token, timeout));
    }
    deletes.forEach(delete -> await(delete, timeout));
  }
}
