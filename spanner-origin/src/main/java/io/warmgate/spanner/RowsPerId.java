package io.warmgate.spanner;

import com.google.cloud.spanner.ResultSet;
import com.google.cloud.spanner.Struct;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** Reads results with any number of rows per id, grouped by id before mapping. */
final class RowsPerId<V> implements RowsReader<V> {

  private final IdColumn idColumn;
  private final RowGroupMapper<? extends V> mapper;

  RowsPerId(String idColumn, RowGroupMapper<? extends V> mapper) {
    this.idColumn = new IdColumn(idColumn);
    this.mapper = mapper;
  }

  @Override
  public Map<String, V> read(ResultSet rows, int expected) {
    Map<String, List<Struct>> groups = new LinkedHashMap<>(expected * 2);
    int index = -1;
    while (rows.next()) {
      if (index < 0) {
        index = idColumn.indexIn(rows);
      }
      groups.computeIfAbsent(idColumn.read(rows, index), id -> new ArrayList<>())
          .add(rows.getCurrentRowAsStruct());
    }
    Map<String, V> values = new HashMap<>(groups.size() * 2);
    groups.forEach((id, group) -> values.put(id, mapper.map(List.copyOf(group))));
    return values;
  }

  @Override
  public String idColumn() {
    return idColumn.name();
  }
}
