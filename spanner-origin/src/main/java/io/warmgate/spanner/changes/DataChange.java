package io.warmgate.spanner.changes;

import java.time.Instant;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/**
 * One row change read from a change stream: a {@code mod} of a data change record.
 *
 * @param table the table the row belongs to
 * @param modType {@code INSERT}, {@code UPDATE} or {@code DELETE}
 * @param keys the row's primary-key columns, by name (strings, numbers, booleans as JSON gives them)
 * @param newValues the changed columns' new values ({@code OLD_AND_NEW_VALUES}, the default
 *     capture type); empty for a delete
 * @param oldValues the changed columns' old values; empty for an insert
 * @param commitTimestamp when the transaction committed
 */
public record DataChange(String table, String modType, Map<String, Object> keys,
    Map<String, Object> newValues, Map<String, Object> oldValues, Instant commitTimestamp) {

  /** Copies the maps (a column set to NULL keeps its null value). */
  public DataChange {
    Objects.requireNonNull(table, "table");
    keys = Collections.unmodifiableMap(new LinkedHashMap<>(keys));
    newValues = Collections.unmodifiableMap(new LinkedHashMap<>(newValues));
    oldValues = Collections.unmodifiableMap(new LinkedHashMap<>(oldValues));
  }

  /**
   * Returns key column {@code column} as a string, such as a {@code STRING} id.
   *
   * @throws IllegalArgumentException if the row has no such key column; names the columns it has
   */
  public String key(String column) {
    Object value = keys.get(column);
    if (value == null) {
      throw new IllegalArgumentException("a change of table " + table + " has no key column '"
          + column + "'; its key columns are " + keys.keySet());
    }
    return String.valueOf(value);
  }

  /** Returns column {@code column} before or after the change, whichever is known, or null. */
  public Object value(String column) {
    Object value = newValues.get(column);
    return value != null ? value : oldValues.get(column);
  }
}
