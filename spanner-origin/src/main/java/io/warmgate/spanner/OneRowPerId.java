package io.warmgate.spanner;

import com.google.cloud.spanner.ResultSet;
import java.util.HashMap;
import java.util.Map;

/** Reads results with one row per id. */
final class OneRowPerId<V> implements RowsReader<V> {

  private final IdColumn idColumn;
  private final RowMapper<? extends V> mapper;

  OneRowPerId(String idColumn, RowMapper<? extends V> mapper) {
    this.idColumn = new IdColumn(idColumn);
    this.mapper = mapper;
  }

  @Override
  public Map<String, V> read(ResultSet rows, int expected) {
    Map<String, V> values = new HashMap<>(expected * 2);
    int index = -1;
    while (rows.next()) {
      if (index < 0) {
        index = idColumn.indexIn(rows);
      }
      String id = idColumn.read(rows, index);
      if (values.containsKey(id)) {
        throw new IllegalStateException("the query returned more than one row for id '" + id
            + "', but mapRows takes one row per id: make the query return one row per id, or use "
            + "mapRowGroups(...) to assemble a value from several rows");
      }
      values.put(id, mapper.map(rows));
    }
    return values;
  }

  @Override
  public String idColumn() {
    return idColumn.name();
  }
}
