package io.warmgate.agent.registry;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** The JSON of a registry entry, byte for byte as the operator and older agents read it. */
class AgentInfoTest {

  @Test
  void entryIsWrittenWithTheContractsPropertiesInOrder() {
    AgentInfo entry = new AgentInfo("deals-7d9f-abcde", "shop", "7d9f", "0123456789ab", "1.2.3",
        1700000000000L, 1700000015000L);
    assertThat(entry.toJson()).isEqualTo("{\"pod\":\"deals-7d9f-abcde\",\"namespace\":\"shop\","
        + "\"podTemplateHash\":\"7d9f\",\"schemaHash\":\"0123456789ab\",\"version\":\"1.2.3\","
        + "\"startedAt\":1700000000000,\"expiresAt\":1700000015000}");
    assertThat(entry.field()).isEqualTo("shop/deals-7d9f-abcde");
  }

  @Test
  void unknownNamespaceAndHashAreWrittenAsNull() {
    assertThat(new AgentInfo("p", null, null, "ab", "v", 1, 2).toJson())
        .isEqualTo("{\"pod\":\"p\",\"namespace\":null,\"podTemplateHash\":null,"
            + "\"schemaHash\":\"ab\",\"version\":\"v\",\"startedAt\":1,\"expiresAt\":2}");
  }

  @Test
  void unknownPropertiesAreIgnored() {
    assertThat(AgentInfo.fromJson("{\"pod\":\"x\",\"expiresAt\":5,\"schemaHash\":\"a\","
        + "\"version\":\"v\",\"extra\":1}"))
        .isEqualTo(new AgentInfo("x", null, null, "a", "v", 0, 5));
  }
}
