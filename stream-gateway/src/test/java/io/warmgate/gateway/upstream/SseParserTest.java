package io.warmgate.gateway.upstream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

class SseParserTest {

  @Test
  void parsesEventsSplitAnywhereIncludingInsideUtf8Characters() {
    byte[] body = ": hello\n\ndata: grüß\r\n\nevent: token\ndata: a\ndata:b\n\nid: 7\nretry: 10\ndata\n\n"
        .getBytes(StandardCharsets.UTF_8);
    for (int split = 1; split < body.length; split++) {
      List<UpstreamEvent> events = new ArrayList<>();
      SseParser parser = new SseParser(events::add, 1024);
      parser.feed(Arrays.copyOfRange(body, 0, split));
      parser.feed(Arrays.copyOfRange(body, split, body.length));
      assertThat(events).as("split at %d", split).containsExactly(
          new UpstreamEvent("", "grüß"), new UpstreamEvent("token", "a\nb"), new UpstreamEvent("", ""));
    }
  }

  @Test
  void anUnterminatedLastEventIsDropped() {
    List<UpstreamEvent> events = new ArrayList<>();
    new SseParser(events::add, 1024).feed("data: partial\n".getBytes(StandardCharsets.UTF_8));
    assertThat(events).isEmpty();
  }

  @Test
  void aLineLongerThanTheLimitIsRefusedBeforeItIsBuffered() {
    SseParser parser = new SseParser(e -> { }, 16);
    assertThatThrownBy(() -> parser.feed(("data: " + "x".repeat(11)).getBytes(StandardCharsets.UTF_8)))
        .isInstanceOf(UpstreamException.class)
        .hasMessage("the upstream sent a line longer than 16 bytes (WARMGATE_GATEWAY_UPSTREAM_MAX_EVENT_BYTES)");
  }

  @Test
  void anEventOfManyShortLinesLongerThanTheLimitIsRefused() {
    List<UpstreamEvent> events = new ArrayList<>();
    SseParser parser = new SseParser(events::add, 16);
    parser.feed("data: 12345\ndata: 12345\n\n".getBytes(StandardCharsets.UTF_8));
    assertThat(events).containsExactly(new UpstreamEvent("", "12345\n12345"));
    assertThatThrownBy(() -> parser.feed("data: 12345\ndata: 12345\ndata: 12345\n".getBytes(StandardCharsets.UTF_8)))
        .isInstanceOf(UpstreamException.class).hasMessageContaining("an event longer than 16 bytes");
  }

  @Test
  void anEventNameWithACarriageReturnIsRefused() {
    SseParser parser = new SseParser(e -> { }, 1024);
    assertThatThrownBy(() -> parser.feed("event: a\rdata: injected\n".getBytes(StandardCharsets.UTF_8)))
        .isInstanceOf(UpstreamException.class).hasMessageContaining("carriage return");
  }
}
