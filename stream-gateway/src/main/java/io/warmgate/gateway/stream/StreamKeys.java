package io.warmgate.gateway.stream;

import io.warmgate.gateway.key.CoalescingKey;

/**
 * The Valkey key names of one coalescing key; all carry the hash tag {@code {wg:gw:<hex>}} so a
 * key's state, lock and streams share one slot and one Lua script may touch them together.
 *
 * <ul>
 *   <li>{@code {wg:gw:<hex>}:state} hash: {@code run} (current run id), {@code status}
 *       ({@code running | done | failed}), {@code next} (chunks appended so far)
 *   <li>{@code {wg:gw:<hex>}:lock} string: the producer's token, {@code PX} lock TTL
 *   <li>{@code {wg:gw:<hex>}:stream:<run>} stream: entries {@code type, i, event, data}
 *   <li>{@code wg:gw:burst:<template>} and {@code wg:gw:burst} (every template): burst flags
 * </ul>
 */
public final class StreamKeys {

  static final String FIELD_TYPE = "type";
  static final String FIELD_INDEX = "i";
  static final String FIELD_EVENT = "event";
  static final String FIELD_DATA = "data";

  /** Burst flag raised for every template. */
  public static final String GLOBAL_BURST = "wg:gw:burst";

  private final String tag;

  private StreamKeys(String tag) {
    this.tag = tag;
  }

  /** The key names of {@code key}. */
  public static StreamKeys of(CoalescingKey key) {
    return new StreamKeys("{wg:gw:" + key.hex() + "}");
  }

  /** The state hash. */
  public String state() {
    return tag + ":state";
  }

  /** The upstream lock. */
  public String lock() {
    return tag + ":lock";
  }

  /** The stream of run {@code run}. */
  public String stream(String run) {
    return tag + ":stream:" + run;
  }

  /** The burst flag of {@code template}; see also {@link #GLOBAL_BURST}. */
  public static String burst(String template) {
    return GLOBAL_BURST + ":" + CoalescingKey.requireTemplate(template);
  }
}
