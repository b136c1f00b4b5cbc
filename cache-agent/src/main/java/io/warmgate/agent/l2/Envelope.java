package io.warmgate.agent.l2;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Objects;

/**
 * What an L2 value key holds: the schema hash of the writer, the time the value left the origin,
 * and the encoded value or a not-found marker.
 *
 * <p>Binary layout (version 1, big-endian):
 * <pre>
 *   0  2 bytes  magic "wg"
 *   2  1 byte   format version = 1
 *   3  1 byte   flags: bit 0 = found (payload follows)
 *   4  1 byte   n = length of the schema hash
 *   5  n bytes  schema hash, ASCII
 *   5+n 8 bytes origin fetch time (when the read began), epoch milliseconds
 *   13+n ...    payload (found only; empty when not found)
 * </pre>
 * The header is 13 bytes plus the hash (25 bytes for a 12-char hash).
 */
public final class Envelope {

  static final byte MAGIC_0 = 'w';
  static final byte MAGIC_1 = 'g';
  static final byte VERSION = 1;
  private static final int FOUND = 1;

  private final String schemaHash;
  private final long fetchedAtMillis;
  private final byte[] payload;

  private Envelope(String schemaHash, long fetchedAtMillis, byte[] payload) {
    this.schemaHash = schemaHash;
    this.fetchedAtMillis = fetchedAtMillis;
    this.payload = payload;
  }

  /** An envelope holding {@code payload} (not copied). */
  public static Envelope found(String schemaHash, long fetchedAtMillis, byte[] payload) {
    return new Envelope(checkHash(schemaHash), fetchedAtMillis, Objects.requireNonNull(payload));
  }

  /** An envelope recording that the origin had no such id. */
  public static Envelope notFound(String schemaHash, long fetchedAtMillis) {
    return new Envelope(checkHash(schemaHash), fetchedAtMillis, null);
  }

  /** The writer's schema hash. */
  public String schemaHash() {
    return schemaHash;
  }

  /** When the value left the origin, epoch milliseconds. */
  public long fetchedAtMillis() {
    return fetchedAtMillis;
  }

  /** Whether the origin had the id. */
  public boolean isFound() {
    return payload != null;
  }

  /** The encoded value (not a copy), or null when not found. */
  public byte[] payload() {
    return payload;
  }

  /** Encodes this envelope in the layout above. */
  public byte[] encode() {
    byte[] hash = schemaHash.getBytes(StandardCharsets.US_ASCII);
    int payloadLength = payload == null ? 0 : payload.length;
    ByteBuffer out = ByteBuffer.allocate(13 + hash.length + payloadLength);
    out.put(MAGIC_0).put(MAGIC_1).put(VERSION).put((byte) (payload == null ? 0 : FOUND));
    out.put((byte) hash.length).put(hash).putLong(fetchedAtMillis);
    if (payload != null) {
      out.put(payload);
    }
    return out.array();
  }

  /**
   * Decodes {@code bytes} and checks they were written for {@code expectedSchemaHash}.
   *
   * @throws EnvelopeException if the bytes are not a version-1 envelope, are truncated, or were
   *     written for another schema hash
   */
  public static Envelope decode(byte[] bytes, String expectedSchemaHash) {
    if (bytes.length < 13 || bytes[0] != MAGIC_0 || bytes[1] != MAGIC_1) {
      throw new EnvelopeException("not a warmgate envelope (" + bytes.length + " bytes)");
    }
    if (bytes[2] != VERSION) {
      throw new EnvelopeException("unknown envelope version " + bytes[2]);
    }
    int flags = bytes[3];
    int hashLength = bytes[4] & 0xFF;
    int payloadStart = 13 + hashLength;
    if (bytes.length < payloadStart || (flags & ~FOUND) != 0) {
      throw new EnvelopeException("truncated or malformed envelope header");
    }
    String hash = new String(bytes, 5, hashLength, StandardCharsets.US_ASCII);
    if (!hash.equals(expectedSchemaHash)) {
      throw new EnvelopeException("envelope of schema " + hash + ", expected " + expectedSchemaHash);
    }
    long fetchedAt = ByteBuffer.wrap(bytes, 5 + hashLength, 8).getLong();
    if ((flags & FOUND) == 0) {
      if (bytes.length != payloadStart) {
        throw new EnvelopeException("not-found envelope with a payload");
      }
      return new Envelope(hash, fetchedAt, null);
    }
    if (bytes.length == payloadStart) {
      throw new EnvelopeException("found envelope without a payload");
    }
    byte[] payload = new byte[bytes.length - payloadStart];
    System.arraycopy(bytes, payloadStart, payload, 0, payload.length);
    return new Envelope(hash, fetchedAt, payload);
  }

  private static String checkHash(String schemaHash) {
    if (schemaHash.isEmpty() || schemaHash.length() > 255) {
      throw new IllegalArgumentException("schema hash must be 1-255 chars: '" + schemaHash + "'");
    }
    return schemaHash;
  }

  /** A stored value that is not a readable envelope of the expected schema: treated as a miss. */
  public static final class EnvelopeException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    EnvelopeException(String message) {
      super(message, null, false, false);
    }
  }
}
