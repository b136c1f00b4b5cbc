package io.warmgate.agent;

import io.warmgate.agent.l2.Envelope;
import io.warmgate.agent.l2.KeySpace;
import io.warmgate.agent.l2.L2Store;
import java.time.Duration;
import java.time.InstantSource;
import java.util.AbstractList;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Typed access to L2: key names, envelopes and payload encoding over an {@link L2Store}. Reads
 * never fail and writes never throw: an L2 error, a corrupt or foreign entry, or an undecodable
 * payload is a miss (counted), an oversize value is not written (counted).
 */
final class L2Tier<V> {

  /** What L2 holds for an id: a value (null = not found) and when it left the origin. */
  record Entry<V>(V value, long fetchedAtMillis) {}

  /** What one look at L2 saw for an id whose fill may be under way: its entry, and the lease. */
  record Fill<V>(Entry<V> entry, boolean leased) {}

  /** The answer of a read that L2 did not answer: every element null. */
  private static final class Unanswered<V> extends AbstractList<Entry<V>> {
    private final int size;

    Unanswered(int size) {
      this.size = size;
    }

    @Override
    public Entry<V> get(int index) {
      Objects.checkIndex(index, size);
      return null;
    }

    @Override
    public int size() {
      return size;
    }
  }

  private static final Logger log = LoggerFactory.getLogger(L2Tier.class);

  private final KeySpace keys;
  private final L2Store store;
  private final ValueCodec<V> codec;
  private final CacheMetrics metrics;
  private final InstantSource clock;
  private final long maxValueBytes;
  private final Consumer<String> written;

  /** @param written told each id whose L2 write succeeded (feeds the distinct-keys count) */
  L2Tier(KeySpace keys, L2Store store, ValueCodec<V> codec, CacheMetrics metrics,
      InstantSource clock, long maxValueBytes, Consumer<String> written) {
    this.keys = keys;
    this.store = store;
    this.codec = codec;
    this.metrics = metrics;
    this.clock = clock;
    this.maxValueBytes = maxValueBytes;
    this.written = written;
  }

  /**
   * A lookup's read of {@code ids}: one {@code GET} (one id) or {@code MGET} (one per slot on a
   * cluster), possibly answered by replicas. The list has one element per id, null where L2 has
   * no readable entry; when L2 fails, all are null and {@link #answered} tells it apart.
   *
   * @param replies where the payloads are decoded and the future completes (see
   *     {@link L2Store#lookup})
   */
  CompletableFuture<List<Entry<V>>> read(List<String> ids, Executor replies) {
    long start = System.nanoTime();
    CompletableFuture<List<byte[]>> values;
    if (ids.size() == 1) {
      values = store.lookup(keys.valueKey(ids.get(0)), replies)
          .thenApply(Collections::singletonList);
    } else {
      values = store.lookupAll(valueKeys(ids), replies);
    }
    return decoded(ids, values, start);
  }

  /**
   * {@link #read(List, Executor)} for background work: from the primaries, bounded by
   * {@code timeout} instead of the lookup budget.
   */
  CompletableFuture<List<Entry<V>>> read(List<String> ids, Duration timeout) {
    long start = System.nanoTime();
    return decoded(ids, store.getAll(valueKeys(ids), timeout), start);
  }

  private List<String> valueKeys(List<String> ids) {
    List<String> valueKeys = new ArrayList<>(ids.size());
    for (String id : ids) {
      valueKeys.add(keys.valueKey(id));
    }
    return valueKeys;
  }

  private CompletableFuture<List<Entry<V>>> decoded(List<String> ids,
      CompletableFuture<List<byte[]>> values, long start) {
    return values.handle((bytes, error) -> {
      if (error != null) {
        // Already counted and logged by the store's listener.
        return new Unanswered<>(ids.size());
      }
      List<Entry<V>> entries = new ArrayList<>(ids.size());
      metrics.l2Latency.record(System.nanoTime() - start, TimeUnit.NANOSECONDS);
      for (int i = 0; i < ids.size(); i++) {
        entries.add(bytes.get(i) == null ? null : decode(ids.get(i), bytes.get(i), true));
      }
      return entries;
    });
  }

  /** Whether {@code entries}, as returned by {@link #read}, came from L2 rather than from a failure. */
  static boolean answered(List<?> entries) {
    return !(entries instanceof Unanswered);
  }

  /**
   * Reads, for each id, its entry and whether its fill lease is held, with one {@code MGET} of the
   * value keys and the lease keys (one per slot on a cluster), from the primaries, so that it sees
   * the lease commands sent before it. Unlike {@link #read}, the future fails when L2 fails; an
   * unreadable entry is null and not counted again (the lookup's own read counted it).
   */
  CompletableFuture<List<Fill<V>>> readFill(List<String> ids) {
    return readFill(ids, null);
  }

  /** {@link #readFill(List)} bounded by {@code timeout} (null: the lookup budget). */
  CompletableFuture<List<Fill<V>>> readFill(List<String> ids, Duration timeout) {
    int n = ids.size();
    List<String> keyList = new ArrayList<>(2 * n);
    for (String id : ids) {
      keyList.add(keys.valueKey(id));
    }
    for (String id : ids) {
      keyList.add(keys.fillKey(id));
    }
    return (timeout == null ? store.getAll(keyList) : store.getAll(keyList, timeout)).thenApply(bytes -> {
      List<Fill<V>> fills = new ArrayList<>(n);
      for (int i = 0; i < n; i++) {
        byte[] value = bytes.get(i);
        fills.add(new Fill<>(value == null ? null : decode(ids.get(i), value, false),
            bytes.get(n + i) != null));
      }
      return fills;
    });
  }

  /**
   * Writes {@code value} (null = not found) so that it expires at {@code fetchedAtMillis +
   * ttlMillis}; readers derive the remaining TTL from the envelope instead of asking for it.
   * Skips values already expired or larger than {@code maxValueBytes}. Returns at once; the
   * future tells whether the entry was written (false when skipped or when L2 failed).
   */
  CompletableFuture<Boolean> write(String id, V value, long fetchedAtMillis, long ttlMillis) {
    return write(id, value, fetchedAtMillis, ttlMillis, null);
  }

  /** {@link #write(String, Object, long, long)} bounded by {@code timeout} (null: the lookup budget). */
  CompletableFuture<Boolean> write(String id, V value, long fetchedAtMillis, long ttlMillis,
      Duration timeout) {
    long px = ttlMillis - (clock.millis() - fetchedAtMillis);
    if (px <= 0) {
      return CompletableFuture.completedFuture(false);
    }
    byte[] bytes;
    try {
      bytes = (value == null
          ? Envelope.notFound(keys.schemaHash(), fetchedAtMillis)
          : Envelope.found(keys.schemaHash(), fetchedAtMillis, codec.encode(value))).encode();
    } catch (Exception e) {
      log.warn("cache '{}': could not encode id '{}' for L2: {}", keys.cacheName(), id, e.toString());
      return CompletableFuture.completedFuture(false);
    }
    if (bytes.length > maxValueBytes) {
      metrics.l2Oversize.increment();
      log.debug("cache '{}': not writing id '{}' to L2: {} bytes > maxValueBytes={}",
          keys.cacheName(), id, bytes.length, maxValueBytes);
      return CompletableFuture.completedFuture(false);
    }
    CompletableFuture<String> set = timeout == null ? store.set(keys.valueKey(id), bytes, px)
        : store.set(keys.valueKey(id), bytes, px, timeout);
    return set.handle((ok, error) -> {
      if (error != null) {
        return false; // counted and logged by the store's listener
      }
      metrics.l2Writes.increment();
      written.accept(id);
      return true;
    });
  }

  private Entry<V> decode(String id, byte[] bytes, boolean count) {
    try {
      Envelope envelope = Envelope.decode(bytes, keys.schemaHash());
      V value = envelope.isFound() ? codec.decode(envelope.payload()) : null;
      return new Entry<>(value, envelope.fetchedAtMillis());
    } catch (Exception e) {
      if (!count) {
        return null;
      }
      metrics.l2Corrupt.increment();
      log.debug("cache '{}': ignoring unreadable L2 entry of id '{}': {}",
          keys.cacheName(), id, e.toString());
      return null;
    }
  }
}
