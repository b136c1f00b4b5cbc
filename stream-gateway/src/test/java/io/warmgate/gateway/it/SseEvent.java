package io.warmgate.gateway.it;

import java.util.ArrayList;
import java.util.List;

/** One server-sent event as a client sees it. */
public record SseEvent(String id, String event, String data) {

  /** Parses a whole {@code text/event-stream} body (comments skipped). */
  public static List<SseEvent> parseAll(String body) {
    List<SseEvent> events = new ArrayList<>();
    Builder current = new Builder();
    for (String line : body.split("\n", -1)) {
      current = current.line(line, events);
    }
    return events;
  }

  /** True for a chunk (not {@code done}/{@code error}). */
  public boolean chunk() {
    return !event.equals("done") && !event.equals("error");
  }

  /** Accumulates the lines of one event. */
  static final class Builder {
    private String id;
    private String event = "";
    private StringBuilder data;

    /** Consumes one line; on a blank line adds the event to {@code out} and starts a new one. */
    Builder line(String line, List<SseEvent> out) {
      if (line.isEmpty()) {
        if (data != null) {
          out.add(new SseEvent(id, event, data.toString()));
        }
        return new Builder();
      }
      if (line.startsWith(":")) {
        return this;
      }
      int colon = line.indexOf(':');
      String field = colon < 0 ? line : line.substring(0, colon);
      String value = colon < 0 ? "" : line.substring(colon + 1).replaceFirst("^ ", "");
      switch (field) {
        case "id" -> id = value;
        case "event" -> event = value;
        case "data" -> data = data == null ? new StringBuilder(value) : data.append('\n').append(value);
        default -> { }
      }
      return this;
    }
  }
}
