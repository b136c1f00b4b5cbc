package io.warmgate.contract.valkey;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class WarmJobStateTest {

  @Test
  void terminalStatesAreNotActive() {
    assertThat(WarmJobState.Done.isActive()).isFalse();
    assertThat(WarmJobState.Failed.isActive()).isFalse();
    assertThat(WarmJobState.Open.isActive()).isTrue();
    assertThat(WarmJobState.Running.isActive()).isTrue();
  }

  @Test
  void statesAreNamedExactly() {
    assertThat(WarmJobState.named("Done")).isEqualTo(WarmJobState.Done);
    assertThat(WarmJobState.named("done")).isNull();
    assertThat(WarmJobState.named(" Done")).isNull();
    assertThat(WarmJobState.named(null)).isNull();
  }
}
