package io.warmgate.agent;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.ObjectReader;
import com.fasterxml.jackson.databind.ObjectWriter;
import com.fasterxml.jackson.dataformat.smile.SmileFactory;
import com.fasterxml.jackson.datatype.jsr310.JavaTimeModule;
import java.io.IOException;

/** Encodes values as the payload of an L2 envelope with one {@link ObjectMapper}. Thread-safe. */
final class ValueCodec<V> {

  private final ObjectReader reader;
  private final ObjectWriter writer;

  ValueCodec(Class<V> type, ObjectMapper mapper) {
    this.reader = mapper.readerFor(type);
    this.writer = mapper.writerFor(type);
  }

  /**
   * The default payload format: Smile (binary JSON, with back-references to repeated property
   * names and short strings); java.time values as decimal epoch seconds, lossless to the nanosecond.
   */
  static ObjectMapper defaultMapper() {
    return new ObjectMapper(new SmileFactory()).registerModule(new JavaTimeModule());
  }

  byte[] encode(V value) throws IOException {
    return writer.writeValueAsBytes(value);
  }

  V decode(byte[] payload) throws IOException {
    return reader.readValue(payload);
  }
}
