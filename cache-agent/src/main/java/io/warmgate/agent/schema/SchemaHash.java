package io.warmgate.agent.schema;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.warmgate.contract.KeySpaceVersions;
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
 *
 * <p>Two more inputs move a type to a new key space when the meaning of its values changes but the
 * type does not: the type's own key space version (the agent reads it from
 * {@code @KeySpaceVersion} on the type), and a key space version set by the deployment. Each is
 * appended to the description only when set, so a type with neither keeps the hash it had before
 * they existed.
 */
public final class SchemaHash {

  /**
   * Version of the envelope and payload codec; part of every hash. Bump it when the bytes written
   * for an unchanged type change, so old and new agents do not read each other's entries.
   */
  public static final int CODEC_VERSION = 1;

  private SchemaHash() {}

  /**
   * Returns the schema hash of {@code type} as {@code mapper} serializes it, with no key space
   * version.
   *
   * @throws NullPointerException if an argument is null
   * @throws IllegalArgumentException if Jackson cannot introspect the type
   */
  public static String of(Class<?> type, ObjectMapper mapper) {
    return of(type, mapper, null, null);
  }

  /**
   * Returns the schema hash of {@code type} as {@code mapper} serializes it, in the type's key
   * space version {@code typeVersion} and the deployment's {@code keySpaceVersion} (each null:
   * none).
   *
   * @throws NullPointerException if {@code type} or {@code mapper} is null
   * @throws IllegalArgumentException if Jackson cannot introspect the type, or a key space version
   *     breaks {@link KeySpaceVersions#RULE}
   */
  public static String of(Class<?> type, ObjectMapper mapper, String typeVersion,
      String keySpaceVersion) {
    return hash(describe(type, mapper, typeVersion, keySpaceVersion));
  }

  /**
   * Returns the canonical description that {@link #of(Class, ObjectMapper)} hashes; useful to see
   * why two types' hashes differ.
   */
  public static String describe(Class<?> type, ObjectMapper mapper) {
    return describe(type, mapper, null, null);
  }

  /**
   * Returns the canonical description that {@link #of(Class, ObjectMapper, String, String)}
   * hashes.
   */
  public static String describe(Class<?> type, ObjectMapper mapper, String typeVersion,
      String keySpaceVersion) {
    Objects.requireNonNull(type, "type");
    Objects.requireNonNull(mapper, "mapper");
    StringBuilder description = new StringBuilder("warmgate-codec/").append(CODEC_VERSION)
        .append(";format=").append(mapper.getFactory().getFormatName())
        .append(";type=").append(new TypeDescriber(mapper.getSerializationConfig())
            .describe(mapper.constructType(type)));
    if (typeVersion != null) {
      if (!KeySpaceVersions.isValid(typeVersion)) {
        throw new IllegalArgumentException("@KeySpaceVersion(\"" + typeVersion + "\") on "
            + type.getName() + " is invalid: expected " + KeySpaceVersions.RULE
            + "; change the annotation's value");
      }
      description.append(";typeKeySpaceVersion=").append(typeVersion);
    }
    if (keySpaceVersion != null) {
      requireValidKeySpaceVersion(keySpaceVersion);
      description.append(";keySpaceVersion=").append(keySpaceVersion);
    }
    return description.toString();
  }

  private static void requireValidKeySpaceVersion(String version) {
    if (!KeySpaceVersions.isValid(version)) {
      throw new IllegalArgumentException("key space version '" + version + "' is invalid: "
          + "expected " + KeySpaceVersions.RULE);
    }
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
