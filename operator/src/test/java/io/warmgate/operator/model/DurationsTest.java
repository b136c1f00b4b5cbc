package io.warmgate.operator.model;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

class DurationsTest {

  @ParameterizedTest
  @CsvSource({
      "500ms, PT0.5S",
      "60s, PT1M",
      "4m, PT4M",
      "1h30m, PT1H30M",
      "1h30m15s250ms, PT1H30M15.25S",
      "90s, PT1M30S",
      "0s, PT0S"
  })
  void parsesKubernetesDurations(String text, Duration expected) {
    assertThat(Durations.parse(text)).isEqualTo(expected);
  }

  @ParameterizedTest
  @ValueSource(strings = {"", "60", "s", "1.5h", "-5s", "5 s", "5sec", "1d", "PT1M", "4M"})
  void rejectsAnythingElseNamingTheValue(String text) {
    assertThatThrownBy(() -> Durations.parse(text))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("'" + text + "'")
        .hasMessageContaining("such as 500ms, 60s, 4m or 1h30m");
  }

  @ParameterizedTest
  @ValueSource(strings = {"999999999h", "2562048h", "2562047h48m"})
  void regressionDurationsBeyondWhatKubernetesAcceptsAreRefused(String text) {
    // The pattern admits 9 digits of hours; CEL's duration() and Go stop at 2562047h47m16.85s.
    assertThatThrownBy(() -> Durations.parse(text))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("'" + text + "' is longer than 2562047h, the longest duration Kubernetes "
            + "accepts");
    assertThat(Durations.parse("2562047h")).isEqualTo(Duration.ofHours(2562047));
  }

  @ParameterizedTest
  @ValueSource(strings = {"20ms", "45s", "4m", "1h30m", "2h", "1m1s1ms"})
  void formatIsTheInverseOfParse(String text) {
    assertThat(Durations.format(Durations.parse(text))).isEqualTo(text);
  }
}
