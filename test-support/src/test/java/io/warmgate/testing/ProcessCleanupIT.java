package io.warmgate.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class ProcessCleanupIT {

  @Test
  void terminatingTheJvmKillsTheServersItStarted() throws Exception {
    Path java = Path.of(System.getProperty("java.home"), "bin", "java");
    Process probe = new ProcessBuilder(java.toString(),
        "-cp", System.getProperty("java.class.path"),
        "-D" + WarmgatePaths.REPO_DIR_PROPERTY + "=" + WarmgatePaths.repoDir(),
        LeakProbe.class.getName())
        .redirectError(ProcessBuilder.Redirect.INHERIT)
        .start();
    List<Long> children = new ArrayList<>();
    try (BufferedReader out = new BufferedReader(
        new InputStreamReader(probe.getInputStream(), StandardCharsets.UTF_8))) {
      for (String line = out.readLine(); line != null && !line.equals("ready"); line = out.readLine()) {
        if (line.startsWith("child ")) {
          children.add(Long.parseLong(line.substring("child ".length())));
        }
      }
      assertThat(children).as("redis-server and emulator_main pids").hasSize(2);
      assertThat(children).allSatisfy(pid -> assertThat(ProcessHandle.of(pid)).isPresent());

      probe.destroy();

      assertThat(probe.waitFor(30, TimeUnit.SECONDS)).isTrue();
    } finally {
      probe.destroyForcibly();
    }
    await().atMost(Duration.ofSeconds(10)).untilAsserted(() ->
        assertThat(children).allSatisfy(pid ->
            assertThat(ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false))
                .as("pid %d alive", pid).isFalse()));
  }
}
