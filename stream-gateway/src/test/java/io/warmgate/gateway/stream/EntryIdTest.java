package io.warmgate.gateway.stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class EntryIdTest {

  @Test
  void ordersAsValkeyDoes() {
    assertThat(EntryId.parse("1700000000000-10")).isGreaterThan(EntryId.parse("1700000000000-9"));
    assertThat(EntryId.parse("1700000000001-0")).isGreaterThan(EntryId.parse("1700000000000-99"));
    assertThat(EntryId.parse("5")).isEqualTo(new EntryId(5, 0));
    assertThat(EntryId.parse(" 5-1 ").toString()).isEqualTo("5-1");
  }

  @Test
  void refusesWhatIsNotAnId() {
    assertThatThrownBy(() -> EntryId.parse("abc")).hasMessageContaining("\"abc\"")
        .hasMessageContaining("<milliseconds>-<sequence>");
    assertThatThrownBy(() -> EntryId.parse("-1-0")).isInstanceOf(IllegalArgumentException.class);
  }
}
