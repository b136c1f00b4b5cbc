package io.warmgate.operator.valkey;

import java.nio.charset.StandardCharsets;
import java.util.Objects;

/**
 * The Valkey key names of one cache, exactly as {@code docs/valkey-layout.md} defines them and
 * the agent's {@code KeySpace} builds them. The only place in the operator that builds keys.
 */
public final class ControlKeys {

  private static final char[] HEX = "0123456789ABCDEF".toCharArray();

  private final String cacheName;
  private final String tag;

  public ControlKeys(String cacheName) {
    this.cacheName = Objects.requireNonNull(cacheName, "cacheName");
    this.tag = "{wg:" + cacheName + "}";
  }

  /** {@code T:agents}, the agent registry. */
  public String agents() {
    return tag + ":agents";
  }

  /** {@code T:hot}, the decayed hot-id sorted set. */
  public String hot() {
    return tag + ":hot";
  }

  /** {@code T:hot:landmark}, the epoch millis the hot-set scores are relative to. */
  public String hotLandmark() {
    return tag + ":hot:landmark";
  }

  /** {@code T:hot:meta}, the hot set's {@code since} and {@code halfLifeMs}. */
  public String hotMeta() {
    return tag + ":hot:meta";
  }

  /** {@code T:stats:<hash>:<bucket>}, counters of the 10-second bucket starting at epoch second. */
  public String statsBucket(String schemaHash, long bucketEpochSecond) {
    return tag + ":stats:" + schemaHash + ":" + bucketEpochSecond;
  }

  /** {@code T:keys:<hash>}, the HyperLogLog of ids written to the namespace. */
  public String keys(String schemaHash) {
    return tag + ":keys:" + schemaHash;
  }

  /** {@code T:warm:<hash>}, the warm job of the namespace. */
  public String warmJob(String schemaHash) {
    return tag + ":warm:" + schemaHash;
  }

  /** {@code T:warm:<hash>:ids}, the ids the warm job loads. */
  public String warmIds(String schemaHash) {
    return tag + ":warm:" + schemaHash + ":ids";
  }

  /**
   * {@code T:changes:<stream>}, the change-stream reader's progress ({@code watermark},
   * {@code lagMs}, {@code owner}, {@code updatedAt}); {@code stream} is used verbatim.
   */
  public String changes(String stream) {
    return tag + ":changes:" + stream;
  }

  /** {@code wg:<cache>:<hash>:<escapedId>}, the value key of {@code id}. */
  public String value(String schemaHash, String id) {
    return "wg:" + cacheName + ":" + schemaHash + ":" + escape(id);
  }

  /**
   * Escapes an id the way the agent does: the UTF-8 bytes that are ASCII letters, digits,
   * {@code -}, {@code _}, {@code .} or {@code ~} stay, every other byte becomes {@code %XX}
   * (upper-case hex).
   */
  static String escape(String id) {
    byte[] utf8 = id.getBytes(StandardCharsets.UTF_8);
    StringBuilder out = new StringBuilder(utf8.length);
    for (byte b : utf8) {
      int c = b & 0xFF;
      if (isSafe(c)) {
        out.append((char) c);
      } else {
        out.append('%').append(HEX[c >>> 4]).append(HEX[c & 0xF]);
      }
    }
    return out.toString();
  }

  private static boolean isSafe(int c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')
        || c == '-' || c == '_' || c == '.' || c == '~';
  }
}
