package io.warmgate.spanner;

import com.google.cloud.spanner.ResultSet;
import com.google.cloud.spanner.Type;
import java.util.List;

/** Finds the id column in a result and reads each row's id from it. */
final class IdColumn {

  private final String name;

  IdColumn(String name) {
    this.name = name;
  }

  String name() {
    return name;
  }

  /**
   * Returns the index of the id column in {@code rows} (positioned on a row): the column named
   * exactly so, else the only one named so ignoring case.
   *
   * @throws IllegalStateException if there is none, several, or it is not a STRING
   */
  int indexIn(ResultSet rows) {
    List<Type.StructField> fields = rows.getType().getStructFields();
    int index = -1;
    for (int i = 0; i < fields.size(); i++) {
      if (fields.get(i).getName().equals(name)) {
        index = i;
        break;
      }
    }
    if (index < 0) {
      for (int i = 0; i < fields.size(); i++) {
        if (fields.get(i).getName().equalsIgnoreCase(name)) {
          if (index >= 0) {
            throw new IllegalStateException("idColumn '" + name + "' matches several result "
                + "columns ignoring case: " + names(fields) + "; name one exactly");
          }
          index = i;
        }
      }
    }
    if (index < 0) {
      throw new IllegalStateException("the query returns no column '" + name + "' (idColumn): "
          + "its columns are " + names(fields) + "; select the id column or fix idColumn(...)");
    }
    Type type = fields.get(index).getType();
    if (type.getCode() != Type.Code.STRING) {
      throw new IllegalStateException("id column '" + name + "' is " + type + ", not STRING: "
          + "select it as CAST(" + name + " AS STRING) AS " + name);
    }
    return index;
  }

  /**
   * Returns the id of the current row.
   *
   * @throws IllegalStateException if it is NULL
   */
  String read(ResultSet rows, int index) {
    if (rows.isNull(index)) {
      throw new IllegalStateException("a row has NULL in the id column '" + name
          + "': every row must carry the id it belongs to (JOIN on the id, not a LEFT JOIN to it)");
    }
    return rows.getString(index);
  }

  private static List<String> names(List<Type.StructField> fields) {
    return fields.stream().map(Type.StructField::getName).toList();
  }
}
