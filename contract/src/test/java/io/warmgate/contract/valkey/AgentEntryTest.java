package io.warmgate.contract.valkey;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class AgentEntryTest {

  @Test
  void theFieldNamesThePodInItsNamespace() {
    assertThat(AgentEntry.field("shop", "deals-7d9f-a")).isEqualTo("shop/deals-7d9f-a");
    assertThat(AgentEntry.podOf("shop/deals-7d9f-a")).isEqualTo("deals-7d9f-a");
  }

  @Test
  void withoutANamespaceTheFieldIsThePod() {
    assertThat(AgentEntry.field(null, "deals-7d9f-a")).isEqualTo("deals-7d9f-a");
    assertThat(AgentEntry.field("", "deals-7d9f-a")).isEqualTo("deals-7d9f-a");
    assertThat(AgentEntry.podOf("deals-7d9f-a")).isEqualTo("deals-7d9f-a");
  }
}
