package io.warmgate.agent;

import io.warmgate.agent.invalidate.LocalTier;
import io.warmgate.agent.l1.L1Cache;
import io.warmgate.agent.l1.L1Entry;
import io.warmgate.agent.l2.KeySpace;
import io.warmgate.agent.l2.L2Store;
import java.time.Duration;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * The data path: L1 → (one shared load per id) → L2 → (fill lease) → origin (behind its circuit
 * breaker), with refresh-ahead, negative entries, stale-if-error and the staleness bound. See
 * {@link TieredCache} for the contract. {@link #fillL2} is {@link BackgroundFill}'s; both paths
 * share one {@link InFlightLoads} and one {@link OriginCalls}, so an id is loaded once however
 * it is asked for.
 */
final class DefaultTieredCache<V> implements TieredCache<V>, LocalTier {

  /** A value (null = not found) that may be served when the origin fails. */
  private record Stale<V>(V value, long fetchedAtMillis) {}

  private final String name;
  private final KeySpace keys;
  private final OriginBreaker originBreaker;
  private final L1Cache<V> l1;
  private final L2Tier<V> l2;
  private final L2Store store;
  private final RefreshAhead<V> refresher;
  /** Null when L2 is not configured or {@code fillWait} is 0: misses go to the origin. */
  private final FillLease<V> fillLease;
  /** Keeps this pod's fill leases and refresh locks alive while it loads; null without L2. */
  private final LeaseRenewer renewer;
  private final Executor executor;
  private final ExecutorService ownedExecutor;
  /** Where L2 replies are decoded and asynchronous lookups complete; see {@link TieredCache}. */
  private final Executor completions;
  private final ExecutorService ownedCompletions;
  private final InstantSource clock;
  private final CacheMetrics metrics;
  private final int maxIdBytes;
  private final L2Ttls ttls;
  private final long refreshAheadMillis;
  private final long maxStalenessMillis;
  private final long staleIfErrorMillis;
  private final Duration staleIfError;
  private final InFlightLoads<V> inFlight = new InFlightLoads<>();
  /** The origin, for lookups, refresh-ahead and background fills. */
  private final OriginCalls<V> originCalls;
  /** Null without L2. */
  private final BackgroundFill<V> backgroundFill;
  private volatile boolean closed;

  DefaultTieredCache(Settings<V> s) {
    this.name = s.keys.cacheName();
    this.keys = s.keys;
    this.originBreaker = s.originBreaker;
    this.l1 = s.l1;
    this.l2 = s.l2 == null ? null
        : new L2Tier<>(s.keys, s.l2, s.codec, s.metrics, s.clock, s.maxValueBytes, s.writtenIds);
    this.executor = s.executor;
    this.ownedExecutor = s.ownedExecutor;
    this.completions = s.completions;
    this.ownedCompletions = s.ownedCompletions;
    this.clock = s.clock;
    this.metrics = s.metrics;
    this.maxIdBytes = s.maxIdBytes;
    this.ttls = new L2Ttls(s.l2Ttl.toMillis(), s.negativeL2Ttl.toMillis());
    this.refreshAheadMillis = s.refreshAhead.toMillis();
    this.originCalls = new OriginCalls<>(name, s.origin, s.originBreaker, s.metrics,
        s.originTimeout.toNanos());
    this.maxStalenessMillis = s.maxStaleness.toMillis();
    this.staleIfErrorMillis = s.staleIfError.toMillis();
    this.staleIfError = s.staleIfError;
    metrics.l1Size(l1::estimatedSize);
    this.store = s.l2;
    this.renewer = l2 == null ? null : new LeaseRenewer(store, s.lockTtl, s.originTimeout);
    this.refresher = l2 == null ? null : new RefreshAhead<>(keys, store, s.lockTtl, renewer,
        s.podName, executor, metrics, this::refreshLoaded);
    this.fillLease = l2 == null || s.fillWait.isZero() ? null
        : new FillLease<>(keys, store, l2, s.lockTtl, s.fillWait, renewer, s.podName, metrics);
    // A fill waits for a lookup's load as long as that may take: its fill wait, then its read.
    this.backgroundFill = l2 == null ? null : new BackgroundFill<>(name, l1, l2, fillLease,
        inFlight, originCalls, originBreaker, ttls, clock, metrics, s.staleIfError,
        s.fillWait.plus(s.originTimeout));
  }

  /** Everything the engine is made of; assembled by {@link WarmGate#build()}. */
  static final class Settings<V> {
    KeySpace keys;
    Origin<V> origin;
    OriginBreaker originBreaker;
    ValueCodec<V> codec;
    L1Cache<V> l1;
    L2Store l2;
    Executor executor;
    ExecutorService ownedExecutor;
    Executor completions;
    ExecutorService ownedCompletions;
    InstantSource clock;
    CacheMetrics metrics;
    Duration l2Ttl;
    Duration negativeL2Ttl;
    Duration refreshAhead;
    Duration lockTtl;
    Duration fillWait = Duration.ZERO;
    /** The origin's {@link Origin#timeout}: how long a lease is renewed once its call began. */
    Duration originTimeout = Duration.ofSeconds(Origin.DEFAULT_TIMEOUT_SECONDS);
    Duration maxStaleness;
    Duration staleIfError;
    long maxValueBytes;
    int maxIdBytes = DEFAULT_MAX_ID_BYTES;
    String podName;
    Consumer<String> writtenIds = id -> { };
  }

  @Override
  public V get(String id) {
    checkOpen();
    checkId(id);
    L1Entry<V> entry = l1.getFresh(id);
    if (entry != null) {
      metrics.l1Hits.increment();
      return entry.value();
    }
    metrics.l1Misses.increment();
    // This thread waits anyway: it takes its L2 reply itself instead of a hop there and back.
    CallerThreadExecutor here = new CallerThreadExecutor(completions);
    try {
      return join(here.await(shared(List.of(id), here).get(id)));
    } finally {
      here.stop();
    }
  }

  @Override
  public Map<String, V> getAll(Iterable<String> ids) {
    checkOpen();
    Map<String, V> found = new LinkedHashMap<>();
    List<String> misses = l1Lookup(ids, found);
    if (!misses.isEmpty()) {
      CallerThreadExecutor here = new CallerThreadExecutor(completions);
      try {
        for (Map.Entry<String, CompletableFuture<V>> e : shared(misses, here).entrySet()) {
          V value = join(here.await(e.getValue()));
          if (value != null) {
            found.put(e.getKey(), value);
          }
        }
      } finally {
        here.stop();
      }
    }
    return Collections.unmodifiableMap(found);
  }

  @Override
  public CompletableFuture<V> getAsync(String id) {
    checkOpen();
    checkId(id);
    L1Entry<V> entry = l1.getFresh(id);
    if (entry != null) {
      metrics.l1Hits.increment();
      return CompletableFuture.completedFuture(entry.value());
    }
    metrics.l1Misses.increment();
    // The caller's own future: cancelling or timing it out leaves the shared load running.
    return shared(List.of(id), completions).get(id).copy();
  }

  @Override
  public CompletableFuture<Map<String, V>> getAllAsync(Iterable<String> ids) {
    checkOpen();
    Map<String, V> found = new LinkedHashMap<>();
    List<String> misses = l1Lookup(ids, found);
    if (misses.isEmpty()) {
      return CompletableFuture.completedFuture(Collections.unmodifiableMap(found));
    }
    Map<String, CompletableFuture<V>> pending = shared(misses, completions);
    return CompletableFuture.allOf(pending.values().toArray(CompletableFuture[]::new))
        .thenApply(ignored -> {
          for (Map.Entry<String, CompletableFuture<V>> e : pending.entrySet()) {
            V value = e.getValue().join();
            if (value != null) {
              found.put(e.getKey(), value);
            }
          }
          return Collections.unmodifiableMap(found);
        });
  }

  @Override
  public int maxIdBytes() {
    return maxIdBytes;
  }

  @Override
  public String name() {
    return name;
  }

  @Override
  public String schemaHash() {
    return keys.schemaHash();
  }

  @Override
  public void close() {
    if (closed) {
      return;
    }
    closed = true;
    if (ownedExecutor != null) {
      ownedExecutor.shutdown();
      try {
        ownedExecutor.awaitTermination(5, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
    if (renewer != null) {
      renewer.close();
    }
    if (store != null) {
      store.close();
    }
    if (ownedCompletions != null) {
      // After the store: replies that arrive while it closes still have somewhere to go.
      ownedCompletions.shutdown();
    }
  }

  @Override
  public String toString() {
    return "TieredCache{" + keys + ", l1Size=" + l1.estimatedSize() + ", l2="
        + (store == null ? "none" : store.breakerState()) + ", origin=" + originBreaker.state() + "}";
  }

  /** Adds the fresh L1 entries of {@code ids} to {@code found}; returns the distinct misses. */
  private List<String> l1Lookup(Iterable<String> ids, Map<String, V> found) {
    if (ids == null) {
      throw new IllegalArgumentException("ids must not be null");
    }
    Set<String> distinct = new LinkedHashSet<>();
    for (String id : ids) {
      checkId(id);
      distinct.add(id);
    }
    List<String> misses = new ArrayList<>();
    for (String id : distinct) {
      L1Entry<V> entry = l1.getFresh(id);
      if (entry != null) {
        metrics.l1Hits.increment();
        if (entry.value() != null) {
          found.put(id, entry.value());
        }
      } else {
        metrics.l1Misses.increment();
        misses.add(id);
      }
    }
    return misses;
  }

  /**
   * Returns the shared load of each id: the one in flight, or a new one. All new ones of this call
   * are loaded as one batch. A load's future leaves the in-flight map just before it completes,
   * whatever the outcome ({@link InFlightLoads}), so a failure is never cached and no
   * entry outlives its load.
   *
   * @param replies where the new loads take their L2 replies
   */
  private Map<String, CompletableFuture<V>> shared(List<String> ids, Executor replies) {
    // Checked on L1 misses only: an id that is refused here never reaches L1.
    ids.forEach(DefaultTieredCache::checkWellFormed);
    Map<String, CompletableFuture<V>> result = new LinkedHashMap<>();
    Map<String, CompletableFuture<V>> started = null;
    for (String id : ids) {
      CompletableFuture<V> future = inFlight.get(id);
      if (future == null) {
        CompletableFuture<V> mine = new CompletableFuture<>();
        future = inFlight.putIfAbsent(id, mine);
        if (future == null) {
          future = mine;
          if (started == null) {
            started = new LinkedHashMap<>();
          }
          started.put(id, mine);
        }
      }
      result.put(id, future);
    }
    if (started != null) {
      load(started, replies);
    }
    return result;
  }

  private void load(Map<String, CompletableFuture<V>> batch, Executor replies) {
    try {
      Map<String, Stale<V>> stale = new HashMap<>();
      List<String> ids = new ArrayList<>(batch.size());
      for (Map.Entry<String, CompletableFuture<V>> e : batch.entrySet()) {
        L1Entry<V> entry = l1.getFresh(e.getKey());
        if (entry != null) {
          // Filled by a load that completed after our caller missed L1.
          inFlight.succeed(e.getKey(), e.getValue(), entry.value());
        } else {
          L1Entry<V> kept = l1.getKept(e.getKey());
          if (kept != null) {
            if (store != null && !store.isAvailable()
                && clock.millis() - kept.fetchedAtMillis() < maxStalenessMillis) {
              // L2 is down, so every pod would read the origin for what L2 usually answers:
              // serve the held value again instead, within the staleness bound.
              metrics.heldServed.increment();
              l1.put(e.getKey(), kept.value(), kept.fetchedAtMillis());
              inFlight.succeed(e.getKey(), e.getValue(), kept.value());
              continue;
            }
            stale.put(e.getKey(), new Stale<>(kept.value(), kept.fetchedAtMillis()));
          }
          ids.add(e.getKey());
        }
      }
      if (ids.isEmpty()) {
        return;
      }
      if (l2 == null) {
        loadFromOriginAsync(ids, batch, stale, FillLease.Held.NONE);
      } else {
        lookupL2(ids, batch, stale, replies);
      }
    } catch (Throwable t) {
      failAll(batch, t);
    }
  }

  private void lookupL2(List<String> ids, Map<String, CompletableFuture<V>> batch,
      Map<String, Stale<V>> stale, Executor replies) {
    l2.read(ids, replies).thenAccept(entries -> {
      List<String> misses = new ArrayList<>();
      Map<String, Long> refresh = null;
      long now = clock.millis();
      for (int i = 0; i < ids.size(); i++) {
        String id = ids.get(i);
        L2Tier.Entry<V> entry = entries.get(i);
        if (entry == null) {
          metrics.l2Misses.increment();
          misses.add(id);
          continue;
        }
        long age = now - entry.fetchedAtMillis();
        long ttl = ttls.of(entry.value());
        long remaining = ttl - age;
        if (remaining <= 0 || age >= maxStalenessMillis) {
          // Expired by our clock (Redis may not have dropped it yet): a miss, but a stale candidate.
          metrics.l2Misses.increment();
          misses.add(id);
          Stale<V> held = stale.get(id);
          if (held == null || held.fetchedAtMillis() < entry.fetchedAtMillis()) {
            stale.put(id, new Stale<>(entry.value(), entry.fetchedAtMillis()));
          }
          continue;
        }
        metrics.l2Hits.increment();
        l1.put(id, entry.value(), entry.fetchedAtMillis());
        inFlight.succeed(id, batch.get(id), entry.value());
        // Entries whose whole TTL fits in the refresh window (short negative TTLs) just expire.
        if (remaining <= refreshAheadMillis && ttl > refreshAheadMillis) {
          if (refresh == null) {
            refresh = new LinkedHashMap<>();
          }
          refresh.put(id, entry.fetchedAtMillis());
        }
      }
      if (!misses.isEmpty()) {
        if (fillLease == null) {
          loadFromOriginAsync(misses, batch, stale, FillLease.Held.NONE);
        } else {
          fillLease.fill(misses, L2Tier.answered(entries), new Misses(batch, stale));
        }
      }
      if (refresh != null) {
        refresher.refresh(refresh);
      }
    }).exceptionally(t -> {
      failAll(batch, t);
      return null;
    });
  }

  /** The ids of one batch that L2 did not hold, as the fill lease settles them. */
  private final class Misses implements FillLease.Misses<V> {
    private final Map<String, CompletableFuture<V>> batch;
    private final Map<String, Stale<V>> stale;

    Misses(Map<String, CompletableFuture<V>> batch, Map<String, Stale<V>> stale) {
      this.batch = batch;
      this.stale = stale;
    }

    @Override
    public boolean servable(L2Tier.Entry<V> entry) {
      long age = clock.millis() - entry.fetchedAtMillis();
      return age < ttls.of(entry.value()) && age < maxStalenessMillis;
    }

    @Override
    public void serve(String id, L2Tier.Entry<V> entry) {
      l1.put(id, entry.value(), entry.fetchedAtMillis());
      inFlight.succeed(id, batch.get(id), entry.value());
    }

    @Override
    public void load(List<String> ids, FillLease.Held held) {
      loadFromOriginAsync(ids, batch, stale, held);
    }
  }

  /** Loads {@code ids} of {@code batch} on the executor; releases {@code held} once that is over. */
  private void loadFromOriginAsync(List<String> ids, Map<String, CompletableFuture<V>> batch,
      Map<String, Stale<V>> stale, FillLease.Held held) {
    try {
      executor.execute(() -> loadFromOrigin(ids, batch, stale, held));
    } catch (RejectedExecutionException e) {
      held.release();
      IllegalStateException error = new IllegalStateException("cache '" + name
          + "' could not start an origin load: " + (closed ? "the cache is closed"
          : e instanceof LoaderQueueFull ? e.getMessage()
          : "its executor rejected the task (" + e.getMessage()
          + "); give it a larger queue or more threads"), e);
      for (String id : ids) {
        inFlight.fail(id, batch.get(id), error);
      }
    }
  }

  /**
   * Loads {@code ids} from the origin, completes their loads and writes L2; then releases
   * {@code held}, whose commands follow the writes on the L2 connection. Its leases are renewed
   * while the origin call runs.
   */
  private void loadFromOrigin(List<String> ids, Map<String, CompletableFuture<V>> batch,
      Map<String, Stale<V>> stale, FillLease.Held held) {
    try {
      held.calling();
      loadFromOrigin(ids, batch, stale);
    } finally {
      held.release();
    }
  }

  private void loadFromOrigin(List<String> ids, Map<String, CompletableFuture<V>> batch,
      Map<String, Stale<V>> stale) {
    // Values count as read when the read began: a value read before a change can be told apart
    // from one read after its invalidation (see Invalidator#invalidateReadBefore).
    long fetchedAt = clock.millis();
    OriginCalls.Answer<V> answer;
    try {
      answer = originCalls.call(ids);
    } catch (Throwable error) {
      long now = clock.millis();
      boolean refused = error == OriginCalls.REFUSED;
      String refusal = refused ? originBreaker.refusal() + "; " : "";
      Throwable cause = refused ? originBreaker.lastError() : error;
      for (String id : ids) {
        Stale<V> held = stale.get(id);
        if (held != null && now - held.fetchedAtMillis() < staleIfErrorMillis) {
          metrics.staleServed.increment();
          inFlight.succeed(id, batch.get(id), held.value());
        } else {
          inFlight.fail(id, batch.get(id), new CacheLoadException(name, id, refusal
              + (held == null ? "no stale value is held"
                  : "the held value is older than staleIfError=" + staleIfError), cause));
        }
      }
      return;
    }
    boolean cache = !answer.late();
    for (String id : ids) {
      V value = answer.values().get(id);
      if (cache) {
        l1.put(id, value, fetchedAt);
      }
      inFlight.succeed(id, batch.get(id), value);
      if (cache) {
        writeL2(id, value, fetchedAt);
      }
    }
  }

  @Override
  public int fillL2(Collection<String> ids) {
    return fillL2(ids, Duration.ZERO);
  }

  @Override
  public void invalidate(String id) {
    invalidateAll(List.of(checkedId(id)));
  }

  /**
   * Without fleet services: drops the ids from this pod's L1 and deletes them from this key
   * space's L2; other pods and key spaces are not told ({@code FleetCache} tells them).
   */
  @Override
  public void invalidateAll(Collection<String> ids) {
    List<String> distinct = validIds(ids);
    if (l2 == null) {
      dropLocal(distinct);
      return;
    }
    List<CompletableFuture<Boolean>> deletions = new ArrayList<>(distinct.size());
    for (String id : distinct) {
      deletions.add(store.delete(keys.valueKey(id), BackgroundFill.TIMEOUT));
    }
    try {
      CompletableFuture.allOf(deletions.toArray(CompletableFuture[]::new)).join();
    } catch (CompletionException e) {
      throw new IllegalStateException("cache '" + name + "': L2 did not delete the invalidated "
          + "values (" + e.getCause() + "): call invalidate again", e.getCause());
    } finally {
      // After the deletion: a lookup in between would otherwise fill L1 again from the old L2 value.
      dropLocal(distinct);
    }
  }

  /**
   * Checks {@code ids} for {@link #invalidateAll} and returns them once each.
   *
   * @throws IllegalArgumentException if {@code ids} is null or holds an invalid id
   */
  List<String> validIds(Collection<String> ids) {
    checkOpen();
    if (ids == null) {
      throw new IllegalArgumentException("ids must not be null");
    }
    List<String> distinct = new ArrayList<>(new LinkedHashSet<>(ids));
    distinct.forEach(this::checkedId);
    return distinct;
  }

  private String checkedId(String id) {
    checkId(id);
    checkWellFormed(id);
    return id;
  }

  @Override
  public void dropLocal(Collection<String> ids) {
    ids.forEach(l1::invalidate);
  }

  @Override
  public void dropAllLocal() {
    l1.invalidateAll();
  }

  @Override
  public int fillL2(Collection<String> ids, Duration minTtlLeft) {
    checkOpen();
    if (minTtlLeft == null || minTtlLeft.isNegative()) {
      throw new IllegalArgumentException("minTtlLeft must not be null or negative: " + minTtlLeft);
    }
    if (l2 == null) {
      throw new IllegalStateException("cache '" + name + "' has no L2 to fill: configure valkeyUri");
    }
    List<String> distinct = new ArrayList<>(new LinkedHashSet<>(ids));
    distinct.forEach(this::checkId);
    distinct.forEach(DefaultTieredCache::checkWellFormed);
    if (distinct.isEmpty()) {
      return 0;
    }
    return backgroundFill.fill(distinct, minTtlLeft);
  }

  /** Refresh-ahead's origin call: fills both tiers, never serves a caller. */
  private void refreshLoaded(List<String> ids) throws Exception {
    long fetchedAt = clock.millis();
    OriginCalls.Answer<V> answer = originCalls.call(ids);
    if (answer.late()) {
      return;
    }
    for (String id : ids) {
      V value = answer.values().get(id);
      l1.put(id, value, fetchedAt);
      writeL2(id, value, fetchedAt);
    }
  }

  private void writeL2(String id, V value, long fetchedAtMillis) {
    if (l2 != null) {
      l2.write(id, value, fetchedAtMillis, ttls.of(value));
    }
  }

  private void failAll(Map<String, CompletableFuture<V>> batch, Throwable t) {
    Throwable cause = t instanceof CompletionException && t.getCause() != null ? t.getCause() : t;
    for (Map.Entry<String, CompletableFuture<V>> e : batch.entrySet()) {
      inFlight.fail(e.getKey(), e.getValue(), cause);
    }
  }

  /** The value of {@code future}, rethrowing what it failed with unwrapped. */
  static <V> V join(CompletableFuture<V> future) {
    try {
      return future.join();
    } catch (CompletionException e) {
      Throwable cause = e.getCause();
      if (cause instanceof RuntimeException r) {
        throw r;
      }
      if (cause instanceof Error err) {
        throw err;
      }
      throw e;
    }
  }

  private void checkOpen() {
    if (closed) {
      throw new IllegalStateException("cache '" + name + "' is closed");
    }
  }

  private void checkId(String id) {
    if (id == null || id.isEmpty() || !KeySpace.fitsUtf8(id, maxIdBytes)) {
      throw invalidId(id);
    }
  }

  /** Refuses an id that is not well-formed Unicode (it would share its L2 key with another id). */
  static void checkWellFormed(String id) {
    int at = KeySpace.unpairedSurrogate(id);
    if (at >= 0) {
      throw new IllegalArgumentException(String.format(
          "id has an unpaired UTF-16 surrogate \\u%04X at index %d; ids must be well-formed "
              + "Unicode text", (int) id.charAt(at), at));
    }
  }

  private IllegalArgumentException invalidId(String id) {
    if (id == null) {
      return new IllegalArgumentException("id must not be null");
    }
    if (id.isEmpty()) {
      return new IllegalArgumentException("id must not be empty");
    }
    String head = id.length() <= 40 ? id : id.substring(0, 40) + "...";
    return new IllegalArgumentException("id '" + head + "' is " + KeySpace.utf8Length(id)
        + " bytes long in UTF-8 (" + id.length() + " chars); ids longer than " + maxIdBytes
        + " bytes are refused (maxIdBytes, " + WarmGateConfig.MAX_ID_BYTES + ")");
  }
}
