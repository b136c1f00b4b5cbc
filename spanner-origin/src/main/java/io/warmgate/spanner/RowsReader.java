package io.warmgate.spanner;

import com.google.cloud.spanner.ResultSet;
import java.util.Map;

/** Turns a batch's result rows into values by id. */
interface RowsReader<V> {

  /** Reads every row of {@code rows}; {@code expected} is the number of ids asked for. */
  Map<String, V> read(ResultSet rows, int expected);

  /** The configured id column, for messages. */
  String idColumn();
}
