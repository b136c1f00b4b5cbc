package io.warmgate.agent.stats;

import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;

/**
 * The distinct ids written to L2 since the last flush, bounded: ids beyond the bound are dropped
 * (and counted), so the HyperLogLog then undercounts rather than the agent running out of memory.
 * Thread-safe; {@link #add} never blocks.
 */
public final class WrittenKeys {

  /** The default bound, ample for one 5-second flush interval of one pod. */
  public static final int DEFAULT_CAPACITY = 100_000;

  private final Set<String> ids = ConcurrentHashMap.newKeySet();
  private final LongAdder dropped = new LongAdder();
  private final int capacity;

  /** Creates a buffer of {@link #DEFAULT_CAPACITY} ids. */
  public WrittenKeys() {
    this(DEFAULT_CAPACITY);
  }

  /**
   * Creates a buffer of at most {@code capacity} distinct ids.
   *
   * @throws IllegalArgumentException if {@code capacity} is not positive
   */
  public WrittenKeys(int capacity) {
    if (capacity <= 0) {
      throw new IllegalArgumentException("capacity must be positive: " + capacity);
    }
    this.capacity = capacity;
  }

  /** Records that {@code id} was written to L2; null is ignored. */
  public void add(String id) {
    if (id == null) {
      return;
    }
    // The size check races with other writers, so the bound may be exceeded by a few ids.
    if (ids.size() < capacity || ids.contains(id)) {
      ids.add(id);
    } else {
      dropped.increment();
    }
  }

  /** Returns how many ids were dropped because the buffer was full, since creation. */
  public long dropped() {
    return dropped.sum();
  }

  /** Removes and returns the buffered ids; an id added meanwhile is either returned or kept. */
  List<String> drain() {
    List<String> out = new ArrayList<>(ids.size());
    for (Iterator<String> it = ids.iterator(); it.hasNext(); ) {
      out.add(it.next());
      it.remove();
    }
    return out;
  }

  /** Puts back ids whose flush failed, as far as the bound allows. */
  void restore(List<String> failed) {
    failed.forEach(this::add);
  }
}
