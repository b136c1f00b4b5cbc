package io.warmgate.gateway.http;

import io.warmgate.gateway.stream.EntryId;
import java.util.Objects;

/**
 * The SSE {@code id} of an event, {@code <run>:<entry>}: the run (one upstream response of the
 * key) and the Valkey stream entry in it. A client sends it back as {@code Last-Event-ID}; since
 * it names its response, a resume never continues a different response from the same position.
 *
 * @param run the run id, lower-case hex
 * @param entry the stream entry id within the run
 */
record EventId(String run, EntryId entry) {

  private static final int MAX_RUN_LENGTH = 64;

  EventId {
    Objects.requireNonNull(run, "run");
    Objects.requireNonNull(entry, "entry");
  }

  /**
   * Parses {@code <run>:<milliseconds>-<sequence>}.
   *
   * @throws IllegalArgumentException naming the value and the expected form
   */
  static EventId parse(String text) {
    String value = text == null ? "" : text.strip();
    int colon = value.indexOf(':');
    if (colon > 0 && colon <= MAX_RUN_LENGTH
        && value.substring(0, colon).chars().allMatch(c -> (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) {
      try {
        return new EventId(value.substring(0, colon), EntryId.parse(value.substring(colon + 1)));
      } catch (IllegalArgumentException e) {
        // reported below with the whole value
      }
    }
    throw new IllegalArgumentException("Last-Event-ID \"" + text + "\" is not an event id of this "
        + "gateway: expected <run>:<milliseconds>-<sequence> as sent in an event's id field, for "
        + "example 3f5c09a1b2c3d4e5:1764500000000-0; request again without Last-Event-ID to start over");
  }

  @Override
  public String toString() {
    return run + ":" + entry;
  }
}
