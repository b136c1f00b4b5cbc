package io.warmgate.contract;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

class DurationsTest {

  /** Every form documented for a CachePolicy field or a WARMGATE_* variable, and more. */
  @ParameterizedTest
  @CsvSource({
      "500ms, PT0.5S",
      "60s, PT1M",
      "4m, PT4M",
      "1h30m, PT1H30M",
      "1h30m15s250ms, PT1H30M15.25S",
      "90s, PT1M30S",
      "0s, PT0S",
      "0, PT0S",
      "20ms, PT0.02S",
      "1.5s, PT1.5S",
      "1.5h, PT1H30M",
      "0.5ms, PT0.0005S",
      "2h0m1s, PT2H1S",
      "1s1h, PT1H1S",
      "0.000000001s, PT0.000000001S",
      "0.000000001ms, PT0S",
      "2562047h, PT2562047H",
      "2562047h47m16.854775807s, PT2562047H47M16.854775807S",
      "999999999ms, PT277H46M39.999S"
  })
  void parsesTheGrammar(String text, Duration expected) {
    assertThat(Durations.parse(text)).isEqualTo(expected);
    assertThat(text).matches(Durations.PATTERN);
  }

  @ParameterizedTest
  @ValueSource(strings = {"", " ", "60", "s", "-5s", "+5s", "5 s", " 5s", "5sec", "1d", "PT1M",
      "4M", "5S", ".5s", "5.s", "1.5", "00", "1000000000s", "1.0000000001s", "500us", "500µs",
      "500ns", "1h-1m", "1e3ms", "１s"})
  void refusesAnythingElseNamingTheValueAndTheForms(String text) {
    assertThat(text).doesNotMatch(Durations.PATTERN);
    assertThatThrownBy(() -> Durations.parse(text))
        .isInstanceOfSatisfying(InvalidDurationException.class, e -> {
          assertThat(e.value()).isEqualTo(text);
          assertThat(e.expected()).isEqualTo(Durations.FORMS);
        })
        .hasMessage("'" + text + "' is not a valid duration: expected a duration such as 500ms, "
            + "60s, 4m, 1h30m or 1.5s (amounts of up to 9 digits, with an optional fraction, each "
            + "with a unit of ms, s, m or h; or 0)");
  }

  @Test
  void refusesNull() {
    assertThatThrownBy(() -> Durations.parse(null)).isInstanceOf(InvalidDurationException.class)
        .hasMessageStartingWith("'null' is not a valid duration");
  }

  @Test
  void refusesMoreThanThirtyTwoCharacters() {
    String text = "1s".repeat(17);
    assertThat(text).matches(Durations.PATTERN);
    assertThatThrownBy(() -> Durations.parse(text))
        .hasMessageEndingWith("or 0), at most 32 characters");
    assertThat(Durations.parse("1s".repeat(16))).isEqualTo(Duration.ofSeconds(16));
  }

  @ParameterizedTest
  @ValueSource(strings = {"999999999h", "2562048h", "2562047h48m", "2562047h47m16.854775808s"})
  void regressionDurationsBeyondWhatKubernetesAcceptsAreRefused(String text) {
    // The pattern admits 9 digits of hours; CEL's duration() and Go stop at 2562047h47m16.85s.
    assertThatThrownBy(() -> Durations.parse(text))
        .isInstanceOf(InvalidDurationException.class)
        .hasMessage("'" + text + "' is not a valid duration: expected a duration of at most "
            + "2562047h47m16.854775807s, the longest Go and Kubernetes accept");
  }

  @ParameterizedTest
  @ValueSource(strings = {"20ms", "45s", "4m", "1h30m", "2h", "1m1s1ms", "0s", "1s500ms",
      "0.25ms", "1h0.000001ms", "2562047h47m16s854.775807ms"})
  void formatIsTheInverseOfParse(String text) {
    assertThat(Durations.format(Durations.parse(text))).isEqualTo(text);
  }

  @Test
  void everyDurationFormatsToTextThatParsesBackToIt() {
    SplittableRandom random = new SplittableRandom(42);
    for (int i = 0; i < 10_000; i++) {
      Duration d = Duration.ofNanos(random.nextLong(0, Long.MAX_VALUE));
      String text = Durations.format(d);
      assertThat(Durations.parse(text)).as(text).isEqualTo(d);
    }
    assertThat(Durations.parse(Durations.format(Durations.LONGEST))).isEqualTo(Durations.LONGEST);
  }

  @Test
  void negativeOrTooLongDurationsHaveNoForm() {
    assertThatThrownBy(() -> Durations.format(Duration.ofSeconds(-1)))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("PT-1S");
    assertThatThrownBy(() -> Durations.format(Durations.LONGEST.plusNanos(1)))
        .isInstanceOf(IllegalArgumentException.class);
  }
}
