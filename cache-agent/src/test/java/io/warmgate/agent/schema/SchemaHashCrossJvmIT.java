package io.warmgate.agent.schema;

import static org.assertj.core.api.Assertions.assertThat;

import io.warmgate.agent.TieredCache;
import io.warmgate.agent.WarmGate;
import io.warmgate.agent.deal.Deal;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The schema hash must not depend on the JVM it is computed in. */
class SchemaHashCrossJvmIT {

  @ParameterizedTest
  @ValueSource(strings = {"-Duser.language=tr", "-XX:+UseSerialGC", "-Duser.timezone=Asia/Kolkata", "-Dfile.encoding=ISO-8859-1"})
  void otherJvmComputesTheSameDealHash(String jvmOption) throws Exception {
    String here;
    try (TieredCache<Deal> cache = WarmGate.newBuilder(Deal.class, ids -> Map.of()).cacheName("deals").build()) {
      here = cache.schemaHash();
    }

    assertThat(hashInNewJvm(jvmOption)).isEqualTo(here).isEqualTo("111b29e45eef");
  }

  private static String hashInNewJvm(String jvmOption) throws IOException, InterruptedException {
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    command.add(jvmOption);
    command.add("-cp");
    command.add(System.getProperty("java.class.path"));
    command.add(PrintDealSchemaHash.class.getName());
    Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
    String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(process.waitFor(60, TimeUnit.SECONDS)).isTrue();
    assertThat(process.exitValue()).as(output).isZero();
    String[] lines = output.trim().split("\\R");
    return lines[lines.length - 1];
  }
}
