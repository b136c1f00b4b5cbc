package io.warmgate.spanner;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.google.cloud.ByteArray;
import com.google.cloud.Date;
import com.google.cloud.Timestamp;
import com.google.cloud.spanner.Struct;
import com.google.cloud.spanner.StructReader;
import com.google.cloud.spanner.Type;
import com.google.cloud.spanner.Value;
import java.math.BigDecimal;
import java.util.List;

/**
 * Turns Spanner rows into Jackson trees: one property per column, named as the column. TIMESTAMP
 * and DATE become ISO-8601 text (which {@code Instant}, {@code LocalDate} and {@code String}
 * properties read), BYTES binary, JSON the parsed document, ARRAY an array, STRUCT an object.
 */
final class SpannerJson {

  private static final JsonNodeFactory NODES = JsonNodeFactory.instance;

  private final ObjectMapper objectMapper;

  SpannerJson(ObjectMapper objectMapper) {
    this.objectMapper = objectMapper;
  }

  /** Returns the current row of {@code row} as an object. */
  ObjectNode row(StructReader row) {
    ObjectNode node = NODES.objectNode();
    List<Type.StructField> fields = row.getType().getStructFields();
    for (int i = 0; i < fields.size(); i++) {
      String column = fields.get(i).getName();
      node.set(column, value(column, row.getValue(i)));
    }
    return node;
  }

  private JsonNode value(String column, Value value) {
    if (value.isNull()) {
      return NODES.nullNode();
    }
    Type type = value.getType();
    return switch (type.getCode()) {
      case ARRAY -> array(column, type.getArrayElementType(), value);
      case STRUCT -> row(value.getStruct());
      case JSON -> json(column, value.getJson());
      default -> scalar(column, type, javaValue(column, type, value));
    };
  }

  private static Object javaValue(String column, Type type, Value value) {
    return switch (type.getCode()) {
      case BOOL -> value.getBool();
      case INT64 -> value.getInt64();
      case FLOAT64 -> value.getFloat64();
      case FLOAT32 -> value.getFloat32();
      case NUMERIC -> value.getNumeric();
      case STRING -> value.getString();
      case BYTES -> value.getBytes();
      case TIMESTAMP -> value.getTimestamp();
      case DATE -> value.getDate();
      default -> throw unsupported(column, type);
    };
  }

  private JsonNode array(String column, Type element, Value value) {
    List<?> items = switch (element.getCode()) {
      case BOOL -> value.getBoolArray();
      case INT64 -> value.getInt64Array();
      case FLOAT64 -> value.getFloat64Array();
      case FLOAT32 -> value.getFloat32Array();
      case NUMERIC -> value.getNumericArray();
      case STRING -> value.getStringArray();
      case JSON -> value.getJsonArray();
      case BYTES -> value.getBytesArray();
      case TIMESTAMP -> value.getTimestampArray();
      case DATE -> value.getDateArray();
      case STRUCT -> value.getStructArray();
      default -> throw unsupported(column, Type.array(element));
    };
    ArrayNode array = NODES.arrayNode(items.size());
    for (Object item : items) {
      if (item == null) {
        array.addNull();
      } else if (item instanceof Struct struct) {
        array.add(row(struct));
      } else if (element.getCode() == Type.Code.JSON) {
        array.add(json(column, (String) item));
      } else {
        array.add(scalar(column, element, item));
      }
    }
    return array;
  }

  private static JsonNode scalar(String column, Type type, Object item) {
    if (item instanceof Boolean b) {
      return NODES.booleanNode(b);
    } else if (item instanceof Long l) {
      return NODES.numberNode(l);
    } else if (item instanceof Double d) {
      return NODES.numberNode(d);
    } else if (item instanceof Float f) {
      return NODES.numberNode(f);
    } else if (item instanceof BigDecimal n) {
      return NODES.numberNode(n);
    } else if (item instanceof String s) {
      return NODES.textNode(s);
    } else if (item instanceof ByteArray bytes) {
      return NODES.binaryNode(bytes.toByteArray());
    } else if (item instanceof Timestamp || item instanceof Date) {
      return NODES.textNode(item.toString());
    }
    throw unsupported(column, type);
  }

  private JsonNode json(String column, String document) {
    try {
      return objectMapper.readTree(document);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("JSON column '" + column + "' holds no valid JSON: "
          + e.getOriginalMessage(), e);
    }
  }

  private static IllegalStateException unsupported(String column, Type type) {
    return new IllegalStateException("column '" + column + "' has type " + type
        + ", which mapColumns cannot bind: cast it in the query (e.g. CAST(" + column
        + " AS STRING)) or map the rows yourself with mapRows(...)");
  }
}
