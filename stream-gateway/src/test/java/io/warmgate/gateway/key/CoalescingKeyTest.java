package io.warmgate.gateway.key;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;

class CoalescingKeyTest {

  private static final ObjectMapper JSON = new ObjectMapper();

  private static JsonNode json(String text) throws Exception {
    return JSON.readTree(text);
  }

  @Test
  void memberOrderWhitespaceAndNumberSpellingDoNotChangeTheKey() throws Exception {
    CoalescingKey a = CoalescingKey.of("daily", json("{\"b\": {\"y\": 1, \"x\": [1.0, 2]}, \"a\": \"q\"}"));
    CoalescingKey b = CoalescingKey.of("daily", json("{\"a\":\"q\",\"b\":{\"x\":[1,2e0],\"y\":1.00}}"));
    assertThat(a).isEqualTo(b);
    assertThat(a.hex()).hasSize(64).matches("[0-9a-f]+");
  }

  @Test
  void templateAndEverySharedValueChangeTheKey() throws Exception {
    CoalescingKey base = CoalescingKey.of("daily", json("{\"a\": 1}"));
    assertThat(CoalescingKey.of("weekly", json("{\"a\": 1}"))).isNotEqualTo(base);
    assertThat(CoalescingKey.of("daily", json("{\"a\": 2}"))).isNotEqualTo(base);
    assertThat(CoalescingKey.of("daily", json("{\"a\": \"1\"}"))).isNotEqualTo(base);
    assertThat(CoalescingKey.of("daily", json("{\"a\": [1]}"))).isNotEqualTo(base);
  }

  @Test
  void missingAndEmptySharedVariablesAreOneKey() throws Exception {
    assertThat(CoalescingKey.of("daily", null)).isEqualTo(CoalescingKey.of("daily", json("{}")));
  }

  @Test
  void malformedInputIsRefusedWithTheReason() throws Exception {
    assertThatThrownBy(() -> CoalescingKey.of("bad/id", null))
        .hasMessageContaining("\"bad/id\"").hasMessageContaining("letters, digits");
    assertThatThrownBy(() -> CoalescingKey.of("daily", json("[1]")))
        .hasMessageContaining("\"shared\" must be a JSON object");
  }
}
