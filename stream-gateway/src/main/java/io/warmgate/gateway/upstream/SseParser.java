package io.warmgate.gateway.upstream;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.function.Consumer;

/**
 * Incremental parser of a {@code text/event-stream} body, fed with byte buffers as they arrive
 * (a buffer may end inside a line or inside a UTF-8 character).
 *
 * <p>Follows the HTML Living Standard's interpretation rules for {@code data}, {@code event} and
 * comments; lines end with LF or CRLF (a lone CR is not treated as a line end). {@code id} and
 * {@code retry} are ignored: the gateway numbers events itself. An event without {@code data}
 * lines is not dispatched; an unterminated last event is dropped, as the standard says. Not
 * thread-safe: feed it from one thread (or one Vert.x context).
 *
 * <p>Bounded: a line, or the data of one event, longer than {@code maxEventBytes} is refused, and
 * so is an event name holding a carriage return (clients would read it as a line end, so the
 * upstream could inject fields into their stream). Either throws an {@link UpstreamException};
 * the parser is then unusable.
 */
public final class SseParser {

  private final Consumer<UpstreamEvent> sink;
  private final int maxEventBytes;
  private final ByteArrayOutputStream line = new ByteArrayOutputStream(256);
  private final StringBuilder data = new StringBuilder();
  private boolean hasData;
  private String event = "";

  /**
   * Creates a parser that hands every complete event to {@code sink}.
   *
   * @param maxEventBytes most bytes of one line and of one event's data
   */
  public SseParser(Consumer<UpstreamEvent> sink, int maxEventBytes) {
    this.sink = sink;
    this.maxEventBytes = maxEventBytes;
  }

  /**
   * Consumes {@code bytes}, dispatching every event they complete.
   *
   * @throws UpstreamException if a line or an event is too long, or an event name holds a CR
   */
  public void feed(byte[] bytes) {
    for (byte b : bytes) {
      if (b == '\n') {
        byte[] raw = line.toByteArray();
        int length = raw.length > 0 && raw[raw.length - 1] == '\r' ? raw.length - 1 : raw.length;
        line.reset();
        onLine(new String(raw, 0, length, StandardCharsets.UTF_8));
      } else {
        if (line.size() >= maxEventBytes) {
          throw tooLarge("a line");
        }
        line.write(b);
      }
    }
  }

  private UpstreamException tooLarge(String what) {
    String message = "the upstream sent " + what + " longer than " + maxEventBytes
        + " bytes (WARMGATE_GATEWAY_UPSTREAM_MAX_EVENT_BYTES)";
    return new UpstreamException(message);
  }

  private void onLine(String text) {
    if (text.isEmpty()) {
      if (hasData) {
        sink.accept(new UpstreamEvent(event, data.toString()));
      }
      data.setLength(0);
      hasData = false;
      event = "";
      return;
    }
    if (text.startsWith(":")) {
      return;
    }
    int colon = text.indexOf(':');
    String field = colon < 0 ? text : text.substring(0, colon);
    String value = colon < 0 ? "" : text.substring(colon + 1);
    if (value.startsWith(" ")) {
      value = value.substring(1);
    }
    switch (field) {
      case "data" -> {
        if (data.length() + value.length() + 1 > maxEventBytes) {
          throw tooLarge("an event");
        }
        if (hasData) {
          data.append('\n');
        }
        data.append(value);
        hasData = true;
      }
      case "event" -> {
        if (value.indexOf('\r') >= 0) {
          throw new UpstreamException("the upstream sent an event name with a carriage return, "
              + "which clients would read as a line break; the response is refused");
        }
        event = value;
      }
      default -> {
        // id, retry and unknown fields: ignored on purpose (see the class comment)
      }
    }
  }
}
