package io.warmgate.contract;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class KeySpaceVersionsTest {

  @ParameterizedTest
  @ValueSource(strings = {"2", "v2", "2026-03-cents", "release_7.1", "...",
      "a12345678901234567890123456789012345678901234567890123456789012"})
  void accepts(String version) {
    assertThat(KeySpaceVersions.isValid(version)).isTrue();
    assertThat(version).matches(KeySpaceVersions.PATTERN);
  }

  @ParameterizedTest
  @ValueSource(strings = {"", " 2", "v 2", "v2:cents", "{2}", "v2*", "v/2", "ä", "v2;x",
      "a123456789012345678901234567890123456789012345678901234567890123"})
  void refuses(String version) {
    assertThat(KeySpaceVersions.isValid(version)).isFalse();
  }
}
