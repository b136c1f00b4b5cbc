package io.warmgate.agent;

/**
 * How long L2 keeps a value and a not-found marker: the one place that tells the two apart, for
 * writes and for judging by this pod's clock whether an entry read back has expired.
 */
record L2Ttls(long valueMillis, long notFoundMillis) {

  /** The TTL of an entry holding {@code value}; null is a not-found marker. */
  long of(Object value) {
    return value != null ? valueMillis : notFoundMillis;
  }

  /** What is left of {@code entry}'s TTL at {@code nowMillis}; ≤ 0 once it expired. */
  long left(L2Tier.Entry<?> entry, long nowMillis) {
    return of(entry.value()) - (nowMillis - entry.fetchedAtMillis());
  }
}
