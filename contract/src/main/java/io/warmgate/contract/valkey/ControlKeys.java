package io.warmgate.contract.valkey;

import java.util.Objects;

/**
 * The control keys of one cache: {@code {wg:<cache>}:<name>}, one hash tag per cache, so that on a
 * cluster they all live in one slot and multi-key commands and scripts on them work. What each
 * holds is the table of {@code docs/valkey-layout.md}, which {@code ValkeyLayoutDocTest} checks
 * against this class; a new key goes into both.
 *
 * <p>Names are built as given: the cache name and schema hash are checked by the caller (the
 * agent's {@code KeySpace}; the operator gets them from a validated CachePolicy and from agents).
 */
public final class ControlKeys {

  private final String cacheName;
  private final String tag;

  /** The control keys of cache {@code cacheName}. */
  public ControlKeys(String cacheName) {
    this.cacheName = Objects.requireNonNull(cacheName, "cacheName");
    this.tag = "{wg:" + cacheName + "}";
  }

  /** The cache name, as given. */
  public String cacheName() {
    return cacheName;
  }

  /** {@code {wg:<cache>}}, the hash tag every control key of the cache starts with. */
  public String tag() {
    return tag;
  }

  /** The keys of this cache's ids in namespace {@code schemaHash}; they carry no hash tag. */
  public ValueKeys values(String schemaHash) {
    return new ValueKeys(cacheName, schemaHash);
  }

  /** {@code T:agents}, the agent registry: field = {@link AgentEntry#field}, value = its JSON. */
  public String agents() {
    return tag + ":agents";
  }

  /** {@code T:agents:sweep}, when the next heartbeat deletes long-dead registry entries. */
  public String agentsSweep() {
    return tag + ":agents:sweep";
  }

  /** {@code T:spaces}, the schema hashes whose values may still live, scored by when they expire. */
  public String spaces() {
    return tag + ":spaces";
  }

  /** {@code T:stats:<hash>}, the namespace's cumulative counters. */
  public String stats(String schemaHash) {
    return tag + ":stats:" + schemaHash;
  }

  /**
   * {@code T:stats:<hash>:<bucket>}, the counters of the 10-second bucket starting at epoch second
   * {@code bucketEpochSecond}, a multiple of 10.
   */
  public String statsBucket(String schemaHash, long bucketEpochSecond) {
    return tag + ":stats:" + schemaHash + ":" + bucketEpochSecond;
  }

  /** {@code T:keys:<hash>}, the HyperLogLog of ids written to the namespace. */
  public String keysWritten(String schemaHash) {
    return tag + ":keys:" + schemaHash;
  }

  /** {@code T:hot}, the decayed hot-id sorted set of raw ids; schema independent. */
  public String hot() {
    return tag + ":hot";
  }

  /** {@code T:hot:landmark}, the epoch millis the hot-set scores are relative to. */
  public String hotLandmark() {
    return tag + ":hot:landmark";
  }

  /** {@code T:hot:meta}, what turns hot-set scores into rates ({@code since}, {@code halfLifeMs}). */
  public String hotMeta() {
    return tag + ":hot:meta";
  }

  /** {@code T:warm:<hash>}, the warm job of the namespace; its {@code state} is a {@link WarmJobState}. */
  public String warmJob(String schemaHash) {
    return tag + ":warm:" + schemaHash;
  }

  /** {@code T:warm:<hash>:ids}, the raw ids the warm job loads, in order. */
  public String warmIds(String schemaHash) {
    return tag + ":warm:" + schemaHash + ":ids";
  }

  /** {@code T:warm:<hash>:lock}, the token of the pod working the warm job. */
  public String warmLock(String schemaHash) {
    return tag + ":warm:" + schemaHash + ":lock";
  }

  /** {@code T:invalidations}, the stream of invalidated ids every pod of the cache reads. */
  public String invalidations() {
    return tag + ":invalidations";
  }

  /** {@code T:invalidations:seq}, the number of the newest invalidation entry. */
  public String invalidationsSeq() {
    return tag + ":invalidations:seq";
  }

  /**
   * {@code T:changes:<stream>}, the change-stream reader's progress; {@code stream} is a change
   * stream name ({@link io.warmgate.contract.ChangeStreamNames}), used verbatim.
   */
  public String changes(String stream) {
    return tag + ":changes:" + stream;
  }

  /** {@code T:changes:<stream>:lock}, the token of the pod reading the change stream. */
  public String changesLock(String stream) {
    return changes(stream) + ":lock";
  }

  @Override
  public String toString() {
    return "ControlKeys" + tag;
  }
}
