package io.warmgate.operator.inject;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/** Every variable the webhook injects is one the cache agent reads, under the same name. */
class AgentEnvContractTest {

  static final Path AGENT_CONFIG =
      Path.of("cache-agent/src/main/java/io/warmgate/agent/WarmGateConfig.java");

  @Test
  void everyInjectedNameIsReadByTheAgent() throws IOException {
    Path source = repoDir().resolve(AGENT_CONFIG);
    assertThat(source).withFailMessage("%s is missing; run the test from the repository", source)
        .exists();
    Matcher names = Pattern.compile("\"(WARMGATE_[A-Z0-9_]+)\"").matcher(Files.readString(source));
    Set<String> read = names.results().map(m -> m.group(1)).collect(Collectors.toSet());

    assertThat(read).as("variables WarmGateConfig reads").containsAll(injectedNames());
  }

  static List<String> injectedNames() {
    return Arrays.stream(AgentEnv.class.getFields())
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

  static Path repoDir() {
    String dir = System.getProperty("warmgate.repo.dir");
    return dir != null ? Path.of(dir) : Path.of("..").toAbsolutePath().normalize();
  }
}
