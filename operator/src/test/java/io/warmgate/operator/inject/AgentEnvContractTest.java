package io.warmgate.operator.inject;

import static org.assertj.core.api.Assertions.assertThat;

import io.warmgate.agent.WarmGateConfig;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Every variable the webhook injects is one the cache agent reads, under the same name. */
class AgentEnvContractTest {

  @Test
  void everyInjectedNameIsReadByTheAgent() {
    assertThat(names(WarmGateConfig.class)).as("variables WarmGateConfig reads")
        .containsAll(injectedNames());
  }

  static List<String> injectedNames() {
    return names(AgentEnv.class);
  }

  /** The values of {@code type}'s public static String constants that name a variable. */
  private static List<String> names(Class<?> type) {
    return Arrays.stream(type.getFields())
        .filter(f -> Modifier.isStatic(f.getModifiers()) && f.getType() == String.class)
        .map(AgentEnvContractTest::value)
        .filter(v -> v.startsWith("WARMGATE_"))
        .toList();
  }

  private static String value(Field field) {
    try {
      return (String) field.get(null);
    } catch (IllegalAccessException e) {
      throw new IllegalStateException(e);
    }
  }
}
