package io.warmgate.gateway.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.warmgate.gateway.stream.EntryId;
import org.junit.jupiter.api.Test;

class EventIdTest {

  @Test
  void namesTheRunAndTheEntryAndParsesBack() {
    EventId id = new EventId("3f5c09a1b2c3d4e5", new EntryId(1764500000000L, 3));
    assertThat(id.toString()).isEqualTo("3f5c09a1b2c3d4e5:1764500000000-3");
    assertThat(EventId.parse(id.toString())).isEqualTo(id);
  }

  @Test
  void anIdWithoutItsRunIsRefusedNamingTheValueAndTheFix() {
    assertThatThrownBy(() -> EventId.parse("1764500000000-0"))
        .hasMessageContaining("\"1764500000000-0\"")
        .hasMessageContaining("<run>:<milliseconds>-<sequence>")
        .hasMessageContaining("without Last-Event-ID");
    assertThatThrownBy(() -> EventId.parse("XYZ:1-0")).hasMessageContaining("\"XYZ:1-0\"");
    assertThatThrownBy(() -> EventId.parse("ab:yesterday")).hasMessageContaining("\"ab:yesterday\"");
  }
}
