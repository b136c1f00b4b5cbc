package io.warmgate.spanner;

import com.google.cloud.spanner.Struct;
import java.util.List;

/**
 * Assembles the cached value of one id from all the rows the query returned for it, for reads that
 * JOIN child tables (one row per child) ({@link SpannerOrigin.Builder#mapRowGroups}).
 *
 * @param <V> the value type
 */
@FunctionalInterface
public interface RowGroupMapper<V> {

  /**
   * Maps the rows of one id.
   *
   * @param rows the id's rows in the order the query returned them; never empty, unmodifiable
   * @return the value, or null for "not found"
   * @throws RuntimeException to fail the whole batch (an origin error: nothing is cached)
   */
  V map(List<Struct> rows);
}
