package io.warmgate.contract;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class ChangeStreamNamesTest {

  @ParameterizedTest
  @ValueSource(strings = {"DealChanges", "d", "Deal_Changes_2", "x_"})
  void accepts(String name) {
    assertThat(ChangeStreamNames.isValid(name)).isTrue();
    assertThat(name).matches(ChangeStreamNames.PATTERN);
  }

  @ParameterizedTest
  @ValueSource(strings = {"", "2Deals", "_deals", "deal-changes", "Deal Changes", "Deals;DROP",
      "deals)", "ä"})
  void refuses(String name) {
    assertThat(ChangeStreamNames.isValid(name)).isFalse();
  }

  @Test
  void refusesNamesLongerThanSpannerTakes() {
    assertThat(ChangeStreamNames.isValid("a".repeat(128))).isTrue();
    assertThat(ChangeStreamNames.isValid("a".repeat(129))).isFalse();
  }

  @Test
  void refusesNull() {
    assertThat(ChangeStreamNames.isValid(null)).isFalse();
  }
}
