package io.warmgate.gateway.upstream;

import static org.assertj.core.api.Assertions.assertThat;

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
      SseParser parser = new SseParser(events::add);
      parser.feed(Arrays.copyOfRange(body, 0, split));
      parser.feed(Arrays.copyOfRange(body, split, body.length));
      assertThat(events).as("split at %d", split).containsExactly(
          new UpstreamEvent("", "grüß"), new UpstreamEvent("token", "a\nb"), new UpstreamEvent("", ""));
    }
  }

  @Test
  void anUnterminatedLastEventIsDropped() {
    List<UpstreamEvent> events = new ArrayList<>();
    new SseParser(events::add).feed("data: partial\n".getBytes(StandardCharsets.UTF_8));
    assertThat(events).isEmpty();
  }
}
