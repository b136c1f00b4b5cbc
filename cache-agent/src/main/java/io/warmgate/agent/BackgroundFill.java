package io.warmgate.agent;

import io.warmgate.agent.l1.L1Cache;
import io.warmgate.agent.l1.L1Entry;
import java.time.Duration;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@link TieredCache#fillL2}: writes to L2 the ids it lacks or holds with too little TTL left,
 * reading each id from the origin at most once across this pod's lookups and every pod's fill
 * leases, on the calling thread. An id this pod is already loading for a lookup is left to that
 * load; the others become shared loads of their own ({@link InFlightLoads}), so lookups that miss
 * them meanwhile wait for this fill instead of reading the origin again; and each takes its fill
 * lease ({@link FillLease#claim}), so a lookup of another pod that holds it is waited for.
 */
final class BackgroundFill<V> {

  /**
   * Bound of the fill's L2 calls. Background work gets more than a lookup's budget: a slow reply
   * there would only turn into a second origin read of the same batch.
   */
  static final Duration TIMEOUT = Duration.ofSeconds(2);

  private static final Logger log = LoggerFactory.getLogger(BackgroundFill.class);

  private final String name;
  private final L1Cache<V> l1;
  private final L2Tier<V> l2;
  /** Null when {@code fillWait} is 0: no lease is taken. */
  private final FillLease<V> fillLease;
  private final InFlightLoads<V> inFlight;
  private final OriginCalls<V> origin;
  private final OriginBreaker originBreaker;
  private final L2Ttls ttls;
  private final InstantSource clock;
  private final CacheMetrics metrics;
  private final long staleIfErrorMillis;
  /** How long a fill waits for a lookup's load: its fill wait, then its own read. */
  private final long lookupLoadNanos;

  BackgroundFill(String name, L1Cache<V> l1, L2Tier<V> l2, FillLease<V> fillLease,
      InFlightLoads<V> inFlight, OriginCalls<V> origin, OriginBreaker originBreaker,
      L2Ttls ttls, InstantSource clock, CacheMetrics metrics, Duration staleIfError,
      Duration lookupLoad) {
    this.name = name;
    this.l1 = l1;
    this.l2 = l2;
    this.fillLease = fillLease;
    this.inFlight = inFlight;
    this.origin = origin;
    this.originBreaker = originBreaker;
    this.ttls = ttls;
    this.clock = clock;
    this.metrics = metrics;
    this.staleIfErrorMillis = staleIfError.toMillis();
    this.lookupLoadNanos = lookupLoad.toNanos();
  }

  /**
   * Fills L2 with {@code ids} (distinct, checked) so that each has at least {@code minTtlLeft}
   * left; returns how many of them L2 now holds. Calls the origin only when L2 answered.
   */
  int fill(List<String> ids, Duration minTtlLeft) {
    List<L2Tier.Entry<V>> held = DefaultTieredCache.join(l2.read(ids, TIMEOUT));
    if (!L2Tier.answered(held)) {
      // What L2 holds is unknown, and what the origin returned could not be written anyway.
      log.debug("cache '{}': L2 could not be read to fill it; the origin was not called", name);
      return 0;
    }
    long now = clock.millis();
    List<String> missing = new ArrayList<>();
    for (int i = 0; i < ids.size(); i++) {
      L2Tier.Entry<V> entry = held.get(i);
      if (entry == null || !lasts(entry, now, minTtlLeft)) {
        missing.add(ids.get(i));
      }
    }
    if (missing.isEmpty()) {
      return ids.size();
    }
    return ids.size() - missing.size()
        + fillMissing(missing, entry -> lasts(entry, clock.millis(), minTtlLeft));
  }

  /** Whether {@code entry} is unexpired at {@code nowMillis} with {@code minTtlLeft} to go. */
  private boolean lasts(L2Tier.Entry<V> entry, long nowMillis, Duration minTtlLeft) {
    long left = ttls.left(entry, nowMillis);
    return left > 0 && left >= minTtlLeft.toMillis();
  }

  /** Loads {@code missing} into L2; returns how many of them L2 now holds. */
  private int fillMissing(List<String> missing, Predicate<L2Tier.Entry<V>> wanted) {
    Map<String, CompletableFuture<V>> mine = new LinkedHashMap<>();
    Map<String, CompletableFuture<V>> lookups = new LinkedHashMap<>();
    for (String id : missing) {
      CompletableFuture<V> own = new CompletableFuture<>();
      CompletableFuture<V> running = inFlight.putIfAbsent(id, own);
      if (running == null) {
        mine.put(id, own);
      } else {
        lookups.put(id, running);
      }
    }
    int held = 0;
    if (!mine.isEmpty()) {
      held += fillOwn(mine, wanted);
    }
    // A lookup's load writes L2 when it completes; waiting for it keeps the count honest. It may
    // wait its fill wait for another pod's read, then read for up to the origin's timeout.
    long deadline = System.nanoTime() + TIMEOUT.toNanos() + lookupLoadNanos;
    for (CompletableFuture<V> lookup : lookups.values()) {
      try {
        lookup.get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
        held++;
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        break;
      } catch (Exception e) {
        // Failed or still running: not counted, so the caller tries the id again.
      }
    }
    return held;
  }

  /** {@link #fillMissing} of the ids whose shared loads it registered in {@code mine}. */
  private int fillOwn(Map<String, CompletableFuture<V>> mine, Predicate<L2Tier.Entry<V>> wanted) {
    List<String> ids = new ArrayList<>(mine.keySet());
    FillLease.Claim<V> claim = fillLease == null ? FillLease.Claim.none(ids)
        : fillLease.claim(ids, wanted, TIMEOUT);
    try {
      int held = served(claim.filled(), mine);
      held += loadAndWrite(claim.load(), mine);
      if (!claim.awaited().isEmpty()) {
        // After this fill's own reads: a batch does not stall behind another pod's slow one.
        FillLease.Waited<V> waited = fillLease.awaitFills(claim.awaited(), wanted, TIMEOUT,
            taken -> loadAndWrite(taken, mine));
        held += served(waited.filled(), mine);
        held += waited.read();
        held += loadAndWrite(waited.load(), mine);
      }
      return held;
    } finally {
      if (fillLease != null) {
        fillLease.release(claim, TIMEOUT);
      }
      // Whatever did not complete above (an origin or unexpected error): lookups that joined
      // the fill must not hang on it.
      handOver(mine, ids, new IllegalStateException("cache '" + name
          + "': the fill of L2 that this lookup joined ended without a value"));
    }
  }

  /** Completes the shared loads of ids that another pod's fill wrote; returns how many. */
  private int served(Map<String, L2Tier.Entry<V>> filled, Map<String, CompletableFuture<V>> mine) {
    filled.forEach((id, entry) -> inFlight.succeed(id, mine.get(id), entry.value()));
    return filled.size();
  }

  /**
   * Reads {@code ids} with one origin call, writes them to L2 and awaits the writes, then
   * completes their shared loads (this pod's L1 is left as it was). Returns how many were written.
   *
   * @throws CacheLoadException if the origin failed, after ending the shared loads of {@code ids}
   */
  private int loadAndWrite(List<String> ids, Map<String, CompletableFuture<V>> mine) {
    if (ids.isEmpty()) {
      return 0;
    }
    OriginCalls.Answer<V> answer;
    long fetchedAt = clock.millis();
    try {
      answer = origin.call(ids);
    } catch (Throwable e) {
      CacheLoadException failure = e == OriginCalls.REFUSED
          ? new CacheLoadException(name, ids.get(0), originBreaker.refusal() + "; a batch of "
              + ids.size() + " ids was not loaded to fill L2", originBreaker.lastError())
          : new CacheLoadException(name, ids.get(0),
              "the origin failed loading a batch of " + ids.size() + " ids to fill L2", e);
      handOver(mine, ids, failure);
      throw failure;
    }
    Map<String, V> loaded = answer.values();
    if (answer.late()) {
      ids.forEach(id -> inFlight.succeed(id, mine.get(id), loaded.get(id)));
      return 0;
    }
    List<CompletableFuture<Boolean>> writes = new ArrayList<>(ids.size());
    for (String id : ids) {
      V value = loaded.get(id);
      writes.add(l2.write(id, value, fetchedAt, ttls.of(value), TIMEOUT));
    }
    int written = 0;
    for (int i = 0; i < ids.size(); i++) {
      if (writes.get(i).join()) {
        written++;
      }
      inFlight.succeed(ids.get(i), mine.get(ids.get(i)), loaded.get(ids.get(i)));
    }
    return written;
  }

  /**
   * Ends this fill's shared loads of {@code ids} that are still open, as a lookup's failed origin
   * read ends: with the value L1 still holds if it is within {@code staleIfError}, else with
   * {@code error}. Only lookups that joined the fill see it.
   */
  private void handOver(Map<String, CompletableFuture<V>> mine, List<String> ids, Throwable error) {
    long now = clock.millis();
    for (String id : ids) {
      CompletableFuture<V> future = mine.get(id);
      if (future.isDone()) {
        continue;
      }
      L1Entry<V> kept = l1.getKept(id);
      if (kept != null && now - kept.fetchedAtMillis() < staleIfErrorMillis) {
        metrics.staleServed.increment();
        inFlight.succeed(id, future, kept.value());
      } else {
        inFlight.fail(id, future, error);
      }
    }
  }
}
