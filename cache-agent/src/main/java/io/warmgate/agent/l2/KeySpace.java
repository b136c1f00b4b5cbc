package io.warmgate.agent.l2;

import java.nio.charset.StandardCharsets;
import java.util.Objects;
import java.util.regex.Pattern;

/**
 * Owns every Valkey key name of one cache and schema hash; no other class builds keys.
 *
 * <ul>
 *   <li>Value key: {@code wg:<cache>:<schemaHash>:<escapedId>}. No hash tag, so values spread
 *       over every slot of a cluster.
 *   <li>Refresh lock: {@code {wg:<cache>:<schemaHash>:<escapedId>}:lock}.
 *   <li>Fill lease: {@code {wg:<cache>:<schemaHash>:<escapedId>}:fill}.
 *   <li>Control keys (registry, stats, hot set, warm jobs): {@code {wg:<cache>}:<name>}, one hash
 *       tag per cache so multi-key commands on them work in a cluster.
 * </ul>
 *
 * <p>An id's lock and lease keys carry its value key as their hash tag, so on a cluster all three
 * live in one slot, on one primary: a look at value and lease together ({@code MGET}) is one
 * atomic command, and a holder's value write reaches the server before the release that follows
 * it on the same connection. In separate slots a waiter could see the lease gone before the value
 * landed on another primary, and read the origin again.
 *
 * <p>Id escaping: the UTF-8 bytes of the id are kept when they are an ASCII letter, digit,
 * {@code -}, {@code _}, {@code .} or {@code ~} (RFC 3986 "unreserved"); every other byte,
 * {@code %} included, becomes {@code %XX} (upper-case hex). On well-formed Unicode (the cache
 * refuses other ids, see {@link #unpairedSurrogate}) the mapping is injective and its
 * output never holds {@code :}, braces, {@code *}, whitespace or control characters, so no id
 * can collide with another id's key, a lock or lease key, or a control key. Plain ids like
 * {@code deal-000001} are used unchanged.
 */
public final class KeySpace {

  /**
   * Cache names follow the CachePolicy's {@code spec.cacheName} rule exactly (a DNS label), so a
   * name the operator accepts is one the agent accepts, and the reverse.
   */
  private static final Pattern CACHE_NAME = Pattern.compile("[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?");
  /** The cache-name rule, for error messages. */
  public static final String CACHE_NAME_RULE =
      "1-63 lowercase letters, digits or '-', starting and ending with a letter or digit";
  private static final Pattern SCHEMA_HASH = Pattern.compile("[0-9a-f]{1,64}");
  private static final char[] HEX = "0123456789ABCDEF".toCharArray();

  private final String cacheName;
  private final String schemaHash;
  private final String valuePrefix;

  /**
   * Creates the key space of {@code cacheName} and {@code schemaHash}.
   *
   * @throws IllegalArgumentException if the cache name breaks {@link #CACHE_NAME_RULE}, or the
   *     hash is not lower-case hex
   */
  public KeySpace(String cacheName, String schemaHash) {
    requireValidCacheName(cacheName);
    Objects.requireNonNull(schemaHash, "schemaHash");
    if (!SCHEMA_HASH.matcher(schemaHash).matches()) {
      throw new IllegalArgumentException(
          "schema hash '" + schemaHash + "' is invalid: expected lower-case hex");
    }
    this.cacheName = cacheName;
    this.schemaHash = schemaHash;
    this.valuePrefix = "wg:" + cacheName + ":" + schemaHash + ":";
  }

  /**
   * Checks that {@code cacheName} can be part of keys and hash tags.
   *
   * @return the name
   * @throws IllegalArgumentException if it breaks {@link #CACHE_NAME_RULE}
   */
  public static String requireValidCacheName(String cacheName) {
    Objects.requireNonNull(cacheName, "cacheName");
    if (!CACHE_NAME.matcher(cacheName).matches()) {
      throw new IllegalArgumentException("cache name '" + cacheName + "' is invalid: expected "
          + CACHE_NAME_RULE + " (e.g. 'deals')");
    }
    return cacheName;
  }

  /** Returns the cache name. */
  public String cacheName() {
    return cacheName;
  }

  /** Returns the schema hash. */
  public String schemaHash() {
    return schemaHash;
  }

  /** Returns {@code wg:<cache>:<schemaHash>:}, the prefix of every value key (for SCAN). */
  public String valuePrefix() {
    return valuePrefix;
  }

  /** Returns the value key of {@code id}. */
  public String valueKey(String id) {
    return valuePrefix + escape(id);
  }

  /** Returns the refresh-lock key of {@code id}. */
  public String lockKey(String id) {
    return "{" + valueKey(id) + "}:lock";
  }

  /**
   * Returns the fill-lease key of {@code id}: held by the pod loading the id from the origin after
   * an L2 miss, so that other pods wait for its value instead of loading it too.
   */
  public String fillKey(String id) {
    return "{" + valueKey(id) + "}:fill";
  }

  /** Returns {@code {wg:<cache>}}, the hash tag shared by this cache's control keys. */
  public String controlTag() {
    return "{wg:" + cacheName + "}";
  }

  /** Returns the control key {@code {wg:<cache>}:<name>}; {@code name} is used verbatim. */
  public String controlKey(String name) {
    return controlTag() + ":" + name;
  }

  /**
   * Returns {@code {wg:<cache>}:agents}, the hash of live agents: field = pod name, value = the
   * agent's JSON entry (see {@code docs/valkey-layout.md}).
   */
  public String agentsKey() {
    return controlKey("agents");
  }

  /**
   * Returns {@code {wg:<cache>}:agents:sweep}, the epoch millis after which the next heartbeat
   * deletes long-dead registry entries (one sweep a minute for the whole fleet).
   */
  public String agentsSweepKey() {
    return controlKey("agents:sweep");
  }

  /**
   * Returns {@code {wg:<cache>}:spaces}, the sorted set of the cache's schema key spaces whose
   * values may still live: member = schema hash, score = epoch millis by which every value its
   * agents wrote has expired (see {@code docs/valkey-layout.md}).
   */
  public String spacesKey() {
    return controlKey("spaces");
  }

  /** Returns {@code {wg:<cache>}:stats:<schemaHash>}, this namespace's cumulative counters. */
  public String statsKey() {
    return controlKey("stats:" + schemaHash);
  }

  /**
   * Returns {@code {wg:<cache>}:stats:<schemaHash>:<bucket>}, the counters of the 10-second bucket
   * starting at epoch second {@code bucketEpochSecond}.
   *
   * @throws IllegalArgumentException if {@code bucketEpochSecond} is negative or not a multiple
   *     of 10
   */
  public String statsBucketKey(long bucketEpochSecond) {
    if (bucketEpochSecond < 0 || bucketEpochSecond % 10 != 0) {
      throw new IllegalArgumentException("stats bucket " + bucketEpochSecond
          + " is invalid: expected a non-negative epoch second that is a multiple of 10");
    }
    return controlKey("stats:" + schemaHash + ":" + bucketEpochSecond);
  }

  /** Returns {@code {wg:<cache>}:keys:<schemaHash>}, the HyperLogLog of ids written to L2. */
  public String keysWrittenKey() {
    return controlKey("keys:" + schemaHash);
  }

  /** Returns {@code {wg:<cache>}:hot}, the cache's decaying hot-id sorted set (schema independent). */
  public String hotKey() {
    return controlKey("hot");
  }

  /** Returns {@code {wg:<cache>}:hot:landmark}, the epoch millis the hot-set scores are relative to. */
  public String hotLandmarkKey() {
    return controlKey("hot:landmark");
  }

  /**
   * Returns {@code {wg:<cache>}:hot:meta}, the hash that lets a reader turn hot-set scores into
   * request rates: {@code since} (epoch millis the observation began) and {@code halfLifeMs}.
   */
  public String hotMetaKey() {
    return controlKey("hot:meta");
  }

  /**
   * Returns {@code {wg:<cache>}:invalidations}, the stream of invalidated ids every pod of the
   * cache reads, whatever its schema hash.
   */
  public String invalidationsKey() {
    return controlKey("invalidations");
  }

  /** Returns the key space of the same cache under {@code otherSchemaHash}. */
  public KeySpace withSchemaHash(String otherSchemaHash) {
    return otherSchemaHash.equals(schemaHash) ? this : new KeySpace(cacheName, otherSchemaHash);
  }

  /** Returns {@code {wg:<cache>}:warm:<schemaHash>}, the warm job of this namespace. */
  public String warmJobKey() {
    return controlKey("warm:" + schemaHash);
  }

  /** Returns {@code {wg:<cache>}:warm:<schemaHash>:ids}, the list of ids the warm job loads. */
  public String warmIdsKey() {
    return controlKey("warm:" + schemaHash + ":ids");
  }

  /** Returns {@code {wg:<cache>}:warm:<schemaHash>:lock}, the lock of the pod running the warm job. */
  public String warmLockKey() {
    return controlKey("warm:" + schemaHash + ":lock");
  }

  /** Escapes {@code id} as described in the class comment. */
  public static String escape(String id) {
    int n = id.length();
    int i = 0;
    while (i < n && isSafe(id.charAt(i))) {
      i++;
    }
    if (i == n) {
      return id;
    }
    byte[] utf8 = id.getBytes(StandardCharsets.UTF_8);
    StringBuilder out = new StringBuilder(utf8.length * 3);
    for (byte b : utf8) {
      int c = b & 0xFF;
      if (c < 0x80 && isSafe((char) c)) {
        out.append((char) c);
      } else {
        out.append('%').append(HEX[c >>> 4]).append(HEX[c & 0xF]);
      }
    }
    return out.toString();
  }

  /**
   * Returns the index of the first unpaired UTF-16 surrogate in {@code id}, or -1 when it is
   * well-formed Unicode. Such an id has no UTF-8 form: encoding turns each lone surrogate into
   * {@code ?}, so it would share a key with another id.
   */
  public static int unpairedSurrogate(String id) {
    for (int i = 0, n = id.length(); i < n; i++) {
      char c = id.charAt(i);
      if (Character.isHighSurrogate(c) && i + 1 < n && Character.isLowSurrogate(id.charAt(i + 1))) {
        i++;
      } else if (Character.isSurrogate(c)) {
        return i;
      }
    }
    return -1;
  }

  /**
   * Whether the UTF-8 form of {@code id} (well-formed Unicode) takes at most {@code maxBytes}
   * bytes. Allocates nothing, and counts bytes only for ids longer than {@code maxBytes / 3} chars:
   * a char takes one to three bytes (a surrogate pair four).
   */
  public static boolean fitsUtf8(String id, int maxBytes) {
    int chars = id.length();
    if (chars <= maxBytes / 3) {
      return true;
    }
    return chars <= maxBytes && utf8Length(id) <= maxBytes;
  }

  /** The length of the UTF-8 form of {@code id} (well-formed Unicode), in bytes; allocates nothing. */
  public static long utf8Length(String id) {
    long bytes = 0;
    for (int i = 0, n = id.length(); i < n; i++) {
      char c = id.charAt(i);
      if (c < 0x80) {
        bytes += 1;
      } else if (c < 0x800) {
        bytes += 2;
      } else if (Character.isHighSurrogate(c) && i + 1 < n
          && Character.isLowSurrogate(id.charAt(i + 1))) {
        bytes += 4;
        i++;
      } else {
        bytes += 3;
      }
    }
    return bytes;
  }

  private static boolean isSafe(char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')
        || c == '-' || c == '_' || c == '.' || c == '~';
  }

  @Override
  public String toString() {
    return "KeySpace{" + valuePrefix + "}";
  }
}
