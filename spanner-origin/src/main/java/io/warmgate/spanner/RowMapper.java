package io.warmgate.spanner;

import com.google.cloud.spanner.StructReader;

/**
 * Turns the one row a query returns for an id into the cached value
 * ({@link SpannerOrigin.Builder#mapRows}).
 *
 * @param <V> the value type
 */
@FunctionalInterface
public interface RowMapper<V> {

  /**
   * Maps the current row. The reader is only valid during the call: read what you need from it,
   * do not keep it.
   *
   * @return the value, or null for "not found"
   * @throws RuntimeException to fail the whole batch (an origin error: nothing is cached)
   */
  V map(StructReader row);
}
