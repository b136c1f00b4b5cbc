package io.warmgate.agent.l1;

/**
 * An L1 entry: a value (or not-found marker) with the time it left the origin and two deadlines
 * on the L1 ticker's scale. Immutable.
 *
 * @param <V> the value type
 */
public final class L1Entry<V> {

  private final V value;
  private final long fetchedAtMillis;
  private final long freshUntilNanos;
  private final long keepUntilNanos;

  L1Entry(V value, long fetchedAtMillis, long freshUntilNanos, long keepUntilNanos) {
    this.value = value;
    this.fetchedAtMillis = fetchedAtMillis;
    this.freshUntilNanos = freshUntilNanos;
    this.keepUntilNanos = keepUntilNanos;
  }

  /** The value, or null when the origin had no such id. */
  public V value() {
    return value;
  }

  /** When the value left the origin, epoch milliseconds. */
  public long fetchedAtMillis() {
    return fetchedAtMillis;
  }

  long freshUntilNanos() {
    return freshUntilNanos;
  }

  long keepUntilNanos() {
    return keepUntilNanos;
  }

  @Override
  public String toString() {
    return "L1Entry{" + (value == null ? "not found" : value) + ", fetchedAt=" + fetchedAtMillis + "}";
  }
}
