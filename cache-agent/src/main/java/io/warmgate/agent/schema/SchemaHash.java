package io.warmgate.agent.schema;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.Objects;

/**
 * Derives the schema hash of a value type: the first 12 hex chars of the SHA-256 of a canonical
 * description of how the given {@link ObjectMapper} serializes the type.
 *
 * <p>The description covers property names, their declared types (boxed or primitive, collection
 * element and map key/value types, nested bean types recursively), enum constants as written,
 * Jackson annotations that change the serialized form (with their non-default values), the
 * mapper's data format, and {@link #CODEC_VERSION}. Properties and enum constants are sorted, so
 * declaration order does not matter; nothing depends on the JVM, the build, or the names of
 * classes other than JDK types. The class name of a bean appears only when the type refers to
 * itself recursively.
 */
public final class SchemaHash {

  /**
   * Version of the envelope and payload codec; part of every hash. Bump it when the bytes written
   * for an unchanged type change, so old and new agents do not read each other's entries.
   */
  public static final int CODEC_VERSION = 1;

  private SchemaHash() {}

  /**
   * Returns the schema hash of {@code type} as {@code mapper} serializes it.
   *
   * @throws NullPointerException if an argument is null
   * @throws IllegalArgumentException if Jackson cannot introspect the type
   */
  public static String of(Class<?> type, ObjectMapper mapper) {
    return hash(describe(type, mapper));
  }

  /**
   * Returns the canonical description that {@link #of} hashes; useful to see why two types'
   * hashes differ.
   */
  public static String describe(Class<?> type, ObjectMapper mapper) {
    Objects.requireNonNull(type, "type");
    Objects.requireNonNull(mapper, "mapper");
    return "warmgate-codec/" + CODEC_VERSION + ";format=" + mapper.getFactory().getFormatName()
        + ";type=" + new TypeDescriber(mapper.getSerializationConfig()).describe(
            mapper.constructType(type));
  }

  static String hash(String description) {
    try {
      byte[] digest = MessageDigest.getInstance("SHA-256")
          .digest(description.getBytes(StandardCharsets.UTF_8));
      return HexFormat.of().formatHex(digest, 0, 6);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is required by every Java platform", e);
    }
  }
}
