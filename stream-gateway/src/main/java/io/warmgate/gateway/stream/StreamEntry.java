package io.warmgate.gateway.stream;

import java.util.Map;
import java.util.Objects;

/**
 * One entry of a response stream in Valkey: a chunk of the upstream response, or the terminal
 * {@code done} / {@code error} marker.
 *
 * @param id the Valkey stream entry id ({@code <ms>-<seq>}), sent to clients as the SSE {@code id}
 * @param index the chunk index, 0-based; a terminal entry carries the number of chunks before it
 * @param type chunk, done or error
 * @param event the upstream's SSE event name, empty for the default {@code message}
 * @param data the chunk's data, or the error message of an error entry
 */
public record StreamEntry(EntryId id, long index, Type type, String event, String data) {

  /** What an entry is. */
  public enum Type {
    /** A piece of the upstream response. */
    CHUNK,
    /** The response completed; no entry follows. */
    DONE,
    /** The response failed; no entry follows. */
    ERROR;

    /** The value of the entry's {@code type} field. */
    public String wire() {
      return name().toLowerCase(java.util.Locale.ROOT);
    }

    static Type fromWire(String wire) {
      return switch (wire == null ? "" : wire) {
        case "chunk" -> CHUNK;
        case "done" -> DONE;
        case "error" -> ERROR;
        default -> throw new IllegalArgumentException("unknown stream entry type \"" + wire + "\"");
      };
    }
  }

  /** Creates an entry; {@code event} and {@code data} null become empty. */
  public StreamEntry {
    Objects.requireNonNull(id, "id");
    Objects.requireNonNull(type, "type");
    event = event == null ? "" : event;
    data = data == null ? "" : data;
  }

  /** True for {@code done} and {@code error}: nothing follows it. */
  public boolean terminal() {
    return type != Type.CHUNK;
  }

  /**
   * Decodes the fields Valkey returned for entry {@code id}.
   *
   * @throws IllegalArgumentException if a field is missing or malformed (a foreign writer)
   */
  static StreamEntry decode(String id, Map<String, String> fields) {
    String index = fields.get(StreamKeys.FIELD_INDEX);
    if (index == null) {
      throw new IllegalArgumentException("stream entry " + id + " has no chunk index");
    }
    return new StreamEntry(EntryId.parse(id), Long.parseLong(index),
        Type.fromWire(fields.get(StreamKeys.FIELD_TYPE)), fields.get(StreamKeys.FIELD_EVENT),
        fields.get(StreamKeys.FIELD_DATA));
  }
}
