package io.warmgate.contract.valkey;

import java.nio.charset.StandardCharsets;

/**
 * How an id becomes the {@code <escapedId>} of its value key: the UTF-8 bytes of the id are kept
 * when they are an ASCII letter, digit, {@code -}, {@code _}, {@code .} or {@code ~} (RFC 3986
 * "unreserved"); every other byte, {@code %} included, becomes {@code %XX} (upper-case hex), so
 * {@code a:b c%} becomes {@code a%3Ab%20c%25}. Plain ids like {@code deal-000001} are used
 * unchanged.
 *
 * <p>On well-formed Unicode the mapping is injective and its output never holds {@code :}, braces,
 * {@code *}, whitespace or control characters, so no id can collide with another id's key, a lock
 * or lease key, or a control key. An id with an unpaired surrogate has no UTF-8 form (encoding
 * turns it into {@code ?}), so writers refuse such ids.
 */
public final class IdEscaping {

  private static final char[] HEX = "0123456789ABCDEF".toCharArray();

  private IdEscaping() {}

  /** Escapes {@code id} as described in the class comment; a plain id is returned as it is. */
  public static String escape(String id) {
    int n = id.length();
    int i = 0;
    while (i < n && isKept(id.charAt(i))) {
      i++;
    }
    if (i == n) {
      return id;
    }
    byte[] utf8 = id.getBytes(StandardCharsets.UTF_8);
    StringBuilder out = new StringBuilder(utf8.length * 3);
    for (byte b : utf8) {
      int c = b & 0xFF;
      if (c < 0x80 && isKept((char) c)) {
        out.append((char) c);
      } else {
        out.append('%').append(HEX[c >>> 4]).append(HEX[c & 0xF]);
      }
    }
    return out.toString();
  }

  private static boolean isKept(char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')
        || c == '-' || c == '_' || c == '.' || c == '~';
  }
}
