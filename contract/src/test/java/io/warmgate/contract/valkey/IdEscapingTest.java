package io.warmgate.contract.valkey;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

class IdEscapingTest {

  @Test
  void plainIdsAreNotCopied() {
    String id = "Deal_01.x~y-z";
    assertThat(IdEscaping.escape(id)).isSameAs(id);
  }

  @Test
  void unsafeCharactersArePercentEncodedUtf8() {
    assertThat(IdEscaping.escape("a:b")).isEqualTo("a%3Ab");
    assertThat(IdEscaping.escape("{x}*")).isEqualTo("%7Bx%7D%2A");
    assertThat(IdEscaping.escape("a b\n\t")).isEqualTo("a%20b%0A%09");
    assertThat(IdEscaping.escape("é")).isEqualTo("%C3%A9");
    assertThat(IdEscaping.escape("🚀")).isEqualTo("%F0%9F%9A%80");
    assertThat(IdEscaping.escape("100%")).isEqualTo("100%25");
    assertThat(IdEscaping.escape("a:b c%")).isEqualTo("a%3Ab%20c%25");
  }

  @Test
  void escapedIdsHoldNoDelimiterPatternOrWhitespace() {
    for (String id : List.of("a:b:lock", "{wg:deals}:agents", "*", "x y", "\u0000\u001f", "日本")) {
      assertThat(IdEscaping.escape(id)).matches("[A-Za-z0-9._~%-]+");
    }
  }
}
