package io.warmgate.gateway.http;

import static org.assertj.core.api.Assertions.assertThat;

import io.warmgate.gateway.stream.EntryId;
import org.junit.jupiter.api.Test;

class SseSubscriberTest {

  @Test
  void everyLineOfDataIsItsOwnDataField() {
    assertThat(SseSubscriber.event(new EventId("ab12", new EntryId(17, 2)), "token", "a\nb\r\nc"))
        .isEqualTo("id: ab12:17-2\nevent: token\ndata: a\ndata: b\ndata: c\n\n");
  }

  @Test
  void theDefaultEventHasNoEventField() {
    assertThat(SseSubscriber.event(new EventId("ab12", new EntryId(1, 0)), "", "")).isEqualTo("id: ab12:1-0\ndata: \n\n");
  }

  @Test
  void errorsAreJson() {
    assertThat(SseSubscriber.errorJson("say \"no\"")).isEqualTo("{\"error\":\"say \\\"no\\\"\"}");
  }
}
