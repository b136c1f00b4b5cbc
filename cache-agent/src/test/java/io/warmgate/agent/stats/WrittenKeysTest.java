package io.warmgate.agent.stats;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;

class WrittenKeysTest {

  @Test
  void keepsDistinctIdsUpToTheBoundAndCountsTheRest() {
    WrittenKeys keys = new WrittenKeys(3);
    for (String id : List.of("a", "b", "a", "c", "d", "e", "c", "a")) {
      keys.add(id);
    }
    keys.add(null);
    assertThat(keys.dropped()).isEqualTo(2);
    assertThat(keys.drain()).containsExactlyInAnyOrder("a", "b", "c");
    assertThat(keys.drain()).isEmpty();
  }

  @Test
  void restoredIdsGoWithTheNextDrain() {
    WrittenKeys keys = new WrittenKeys(10);
    keys.add("a");
    List<String> failed = keys.drain();
    keys.add("b");
    keys.restore(failed);
    assertThat(keys.drain()).containsExactlyInAnyOrder("a", "b");
  }

  @Test
  void refusesANonPositiveBound() {
    assertThatThrownBy(() -> new WrittenKeys(0)).hasMessage("capacity must be positive: 0");
  }
}
