package io.warmgate.agent.l2;

import io.warmgate.contract.valkey.ControlKeys;
import io.warmgate.contract.valkey.ValueKeys;
import java.util.Objects;
import java.util.regex.Pattern;

/**
 * The Valkey keys of one cache and schema hash, as the agent uses them: checks the cache name and
 * the hash, then names every key with {@link ControlKeys} and {@link ValueKeys}, the layout the
 * operator reads too ({@code docs/valkey-layout.md}). The agent builds no key elsewhere.
 *
 * <p>Also the agent's rules for ids that may have a key: well-formed Unicode
 * ({@link #unpairedSurrogate}) of bounded UTF-8 length ({@link #fitsUtf8}).
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

  private final String schemaHash;
  private final ControlKeys control;
  private final ValueKeys values;

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
    this.schemaHash = schemaHash;
    this.control = new ControlKeys(cacheName);
    this.values = control.values(schemaHash);
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
    return control.cacheName();
  }

  /** Returns the schema hash. */
  public String schemaHash() {
    return schemaHash;
  }

  /** Returns the key space of the same cache under {@code otherSchemaHash}. */
  public KeySpace withSchemaHash(String otherSchemaHash) {
    return otherSchemaHash.equals(schemaHash) ? this : new KeySpace(cacheName(), otherSchemaHash);
  }

  /** @see ValueKeys#prefix() */
  public String valuePrefix() {
    return values.prefix();
  }

  /** @see ValueKeys#value(String) */
  public String valueKey(String id) {
    return values.value(id);
  }

  /** @see ValueKeys#lock(String) */
  public String lockKey(String id) {
    return values.lock(id);
  }

  /** @see ValueKeys#fill(String) */
  public String fillKey(String id) {
    return values.fill(id);
  }

  /** @see ControlKeys#tag() */
  public String controlTag() {
    return control.tag();
  }

  /** @see ControlKeys#agents() */
  public String agentsKey() {
    return control.agents();
  }

  /** @see ControlKeys#agentsSweep() */
  public String agentsSweepKey() {
    return control.agentsSweep();
  }

  /** @see ControlKeys#spaces() */
  public String spacesKey() {
    return control.spaces();
  }

  /** @see ControlKeys#stats(String) */
  public String statsKey() {
    return control.stats(schemaHash);
  }

  /**
   * @see ControlKeys#statsBucket(String, long)
   * @throws IllegalArgumentException if {@code bucketEpochSecond} is negative or not a multiple
   *     of 10
   */
  public String statsBucketKey(long bucketEpochSecond) {
    if (bucketEpochSecond < 0 || bucketEpochSecond % 10 != 0) {
      throw new IllegalArgumentException("stats bucket " + bucketEpochSecond
          + " is invalid: expected a non-negative epoch second that is a multiple of 10");
    }
    return control.statsBucket(schemaHash, bucketEpochSecond);
  }

  /** @see ControlKeys#keysWritten(String) */
  public String keysWrittenKey() {
    return control.keysWritten(schemaHash);
  }

  /** @see ControlKeys#hot() */
  public String hotKey() {
    return control.hot();
  }

  /** @see ControlKeys#hotLandmark() */
  public String hotLandmarkKey() {
    return control.hotLandmark();
  }

  /** @see ControlKeys#hotMeta() */
  public String hotMetaKey() {
    return control.hotMeta();
  }

  /** @see ControlKeys#invalidations() */
  public String invalidationsKey() {
    return control.invalidations();
  }

  /** @see ControlKeys#invalidationsSeq() */
  public String invalidationsSeqKey() {
    return control.invalidationsSeq();
  }

  /** @see ControlKeys#changes(String) */
  public String changesKey(String stream) {
    return control.changes(stream);
  }

  /** @see ControlKeys#changesLock(String) */
  public String changesLockKey(String stream) {
    return control.changesLock(stream);
  }

  /** @see ControlKeys#warmJob(String) */
  public String warmJobKey() {
    return control.warmJob(schemaHash);
  }

  /** @see ControlKeys#warmIds(String) */
  public String warmIdsKey() {
    return control.warmIds(schemaHash);
  }

  /** @see ControlKeys#warmLock(String) */
  public String warmLockKey() {
    return control.warmLock(schemaHash);
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

  @Override
  public String toString() {
    return "KeySpace{" + valuePrefix() + "}";
  }
}
