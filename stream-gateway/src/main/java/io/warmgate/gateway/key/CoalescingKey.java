package io.warmgate.gateway.key;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HexFormat;
import java.util.List;
import java.util.Objects;
import java.util.regex.Pattern;

/**
 * Identifies one shared upstream response: the template id and the template's <em>shared</em>
 * variables, hashed with SHA-256 over a canonical JSON encoding.
 *
 * <p>Canonical means: object members sorted by name at every depth, no insignificant whitespace,
 * numbers compared by value ({@code 1}, {@code 1.0} and {@code 1e0} are one key). Per-user
 * variables are never part of the key, so they cannot break coalescing.
 */
public final class CoalescingKey {

  /** What a template id may contain; it ends up in URLs and Valkey key names. */
  public static final Pattern TEMPLATE_ID = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._-]{0,127}");

  private static final ObjectMapper CANONICAL = new ObjectMapper()
      .configure(SerializationFeature.ORDER_MAP_ENTRIES_BY_KEYS, true)
      .configure(com.fasterxml.jackson.core.JsonGenerator.Feature.WRITE_BIGDECIMAL_AS_PLAIN, true);

  private final String template;
  private final String hex;

  private CoalescingKey(String template, String hex) {
    this.template = template;
    this.hex = hex;
  }

  /**
   * Computes the key of {@code template} with {@code shared} variables.
   *
   * @param shared a JSON object, or null / JSON null for a template without shared variables
   * @throws IllegalArgumentException if the template id is malformed or {@code shared} is not an object
   */
  public static CoalescingKey of(String template, JsonNode shared) {
    requireTemplate(template);
    if (shared != null && !shared.isNull() && !shared.isObject()) {
      throw new IllegalArgumentException("\"shared\" must be a JSON object, not " + shared.getNodeType());
    }
    ObjectNode envelope = JsonNodeFactory.instance.objectNode();
    envelope.put("template", template);
    envelope.set("shared", shared == null || shared.isNull()
        ? JsonNodeFactory.instance.objectNode() : canonical(shared));
    try {
      byte[] bytes = CANONICAL.writeValueAsBytes(envelope);
      return new CoalescingKey(template, HexFormat.of().formatHex(sha256().digest(bytes)));
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("cannot encode shared variables of template " + template, e);
    }
  }

  /**
   * Checks a template id.
   *
   * @throws IllegalArgumentException naming the id and the allowed form
   */
  public static String requireTemplate(String template) {
    if (template == null || !TEMPLATE_ID.matcher(template).matches()) {
      throw new IllegalArgumentException("template id \"" + template + "\" is not valid: use 1 to 128 "
          + "letters, digits, '.', '_' or '-', starting with a letter or digit");
    }
    return template;
  }

  /** The template id. */
  public String template() {
    return template;
  }

  /** The SHA-256 as 64 lower-case hex digits. */
  public String hex() {
    return hex;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof CoalescingKey other && hex.equals(other.hex) && template.equals(other.template);
  }

  @Override
  public int hashCode() {
    return Objects.hash(template, hex);
  }

  @Override
  public String toString() {
    return template + "/" + hex.substring(0, 12);
  }

  /** A copy with members sorted and numbers reduced to their plain value. */
  static JsonNode canonical(JsonNode node) {
    if (node.isObject()) {
      List<String> names = new ArrayList<>();
      node.fieldNames().forEachRemaining(names::add);
      Collections.sort(names);
      ObjectNode sorted = JsonNodeFactory.instance.objectNode();
      for (String name : names) {
        sorted.set(name, canonical(node.get(name)));
      }
      return sorted;
    }
    if (node.isArray()) {
      var array = JsonNodeFactory.instance.arrayNode();
      node.forEach(element -> array.add(canonical(element)));
      return array;
    }
    if (node.isNumber()) {
      var value = node.decimalValue().stripTrailingZeros();
      return value.scale() <= 0 && value.precision() - value.scale() <= 18
          ? JsonNodeFactory.instance.numberNode(value.longValueExact())
          : JsonNodeFactory.instance.numberNode(value);
    }
    return node;
  }

  private static MessageDigest sha256() {
    try {
      return MessageDigest.getInstance("SHA-256");
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("every Java runtime has SHA-256", e);
    }
  }
}
