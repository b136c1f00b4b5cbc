package io.warmgate.gateway.stream;

/**
 * A Valkey stream entry id, {@code <milliseconds>-<sequence>}, ordered as Valkey orders them.
 *
 * <p>Ids are what clients send back in {@code Last-Event-ID}; ids of a later run of the same key
 * sort after every id of an earlier run, so resuming from an id of an expired run replays the
 * whole new response.
 */
public record EntryId(long millis, long sequence) implements Comparable<EntryId> {

  /** The id before every entry ({@code 0-0}). */
  public static final EntryId ZERO = new EntryId(0, 0);

  /**
   * Parses {@code <ms>-<seq>} (or a bare {@code <ms>}, sequence 0).
   *
   * @throws IllegalArgumentException naming the value when it is not a stream entry id
   */
  public static EntryId parse(String text) {
    String value = text == null ? "" : text.trim();
    int dash = value.indexOf('-');
    try {
      long millis = Long.parseLong(dash < 0 ? value : value.substring(0, dash));
      long sequence = dash < 0 ? 0 : Long.parseLong(value.substring(dash + 1));
      if (millis >= 0 && sequence >= 0) {
        return new EntryId(millis, sequence);
      }
    } catch (NumberFormatException e) {
      // reported below with the expected form
    }
    throw new IllegalArgumentException("\"" + text + "\" is not a stream entry id: expected "
        + "<milliseconds>-<sequence> as sent in an event's id field, for example 1764500000000-0");
  }

  @Override
  public int compareTo(EntryId other) {
    int byMillis = Long.compareUnsigned(millis, other.millis);
    return byMillis != 0 ? byMillis : Long.compareUnsigned(sequence, other.sequence);
  }

  /** True if this id comes after {@code other}. */
  public boolean isAfter(EntryId other) {
    return compareTo(other) > 0;
  }

  @Override
  public String toString() {
    return millis + "-" + sequence;
  }
}
