package io.warmgate.agent.invalidate;

/**
 * A stream entry id {@code <ms>-<seq>}, ordered as Valkey orders them.
 *
 * @param millis the milliseconds part
 * @param sequence the sequence part
 */
record StreamId(long millis, long sequence) implements Comparable<StreamId> {

  /** The id before every entry: reading after it reads the whole stream. */
  static final StreamId ZERO = new StreamId(0, 0);

  /**
   * Parses {@code <ms>-<seq>} or {@code <ms>}.
   *
   * @throws IllegalArgumentException if {@code id} is neither
   */
  static StreamId parse(String id) {
    try {
      int dash = id.indexOf('-');
      return dash < 0 ? new StreamId(Long.parseUnsignedLong(id), 0)
          : new StreamId(Long.parseUnsignedLong(id.substring(0, dash)),
              Long.parseUnsignedLong(id.substring(dash + 1)));
    } catch (NumberFormatException | NullPointerException e) {
      throw new IllegalArgumentException("stream id '" + id + "' is not <ms>-<seq>", e);
    }
  }

  @Override
  public int compareTo(StreamId o) {
    int c = Long.compareUnsigned(millis, o.millis);
    return c != 0 ? c : Long.compareUnsigned(sequence, o.sequence);
  }

  @Override
  public String toString() {
    return Long.toUnsignedString(millis) + "-" + Long.toUnsignedString(sequence);
  }
}
