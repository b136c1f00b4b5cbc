package io.warmgate.spanner;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.MapperFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.datatype.jsr310.JavaTimeModule;
import com.google.cloud.spanner.StructReader;
import java.util.Objects;

/** Binds a row's columns to a type's properties with Jackson ({@code mapColumns}). */
final class ColumnsMapper<V> implements RowMapper<V> {

  private final Class<V> type;
  private final ObjectMapper objectMapper;
  private final SpannerJson json;

  ColumnsMapper(Class<V> type, ObjectMapper objectMapper) {
    this.type = Objects.requireNonNull(type, "type");
    this.objectMapper = Objects.requireNonNull(objectMapper, "objectMapper");
    this.json = new SpannerJson(objectMapper);
  }

  /** Column names match property names ignoring case; java.time types are understood. */
  static ObjectMapper defaultObjectMapper() {
    return JsonMapper.builder()
        .addModule(new JavaTimeModule())
        .enable(MapperFeature.ACCEPT_CASE_INSENSITIVE_PROPERTIES)
        .build();
  }

  @Override
  public V map(StructReader row) {
    ObjectNode columns = json.row(row);
    try {
      return objectMapper.treeToValue(columns, type);
    } catch (JsonProcessingException | IllegalArgumentException e) {
      String reason = e instanceof JsonProcessingException j ? j.getOriginalMessage() : e.getMessage();
      throw new IllegalStateException("cannot bind the columns " + fieldNames(columns) + " to "
          + type.getName() + ": " + reason + "; alias the columns to the "
          + "property names (SELECT Name AS title), select only what the type holds, or map "
          + "the rows yourself with mapRows(...)", e);
    }
  }

  private static String fieldNames(ObjectNode node) {
    StringBuilder names = new StringBuilder("[");
    node.fieldNames().forEachRemaining(n -> names.append(names.length() > 1 ? ", " : "").append(n));
    return names.append(']').toString();
  }
}
