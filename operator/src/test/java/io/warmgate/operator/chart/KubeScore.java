package io.warmgate.operator.chart;

import static org.assertj.core.api.Assertions.assertThat;

import io.warmgate.operator.testing.ApiServer;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** Runs the kube-score binary that hack/prereqs.sh built on rendered manifests. */
final class KubeScore {

  static final String VERSION = System.getProperty("warmgate.kube-score.version", "1.20.0");

  private KubeScore() {}

  static Path binary() {
    Path kubeScore = ApiServer.cacheDir().resolve("bin/kube-score-v" + VERSION + "/kube-score");
    assertThat(kubeScore).withFailMessage("No kube-score v%s at %s; build it with "
        + "hack/prereqs.sh (or point -Dwarmgate.cache.dir at its cache)", VERSION, kubeScore)
        .isExecutable();
    return kubeScore;
  }

  /**
   * The findings of {@code kube-score score} on {@code manifests}, one line each in its CI
   * format ({@code [CRITICAL] name/namespace kind: message}); passed and skipped checks left out.
   */
  static List<String> findings(String manifests) throws IOException, InterruptedException {
    Path in = Files.createTempFile("chart", ".yaml");
    Path out = Files.createTempFile("kube-score", ".out");
    try {
      Files.writeString(in, manifests, StandardCharsets.UTF_8);
      Process process = new ProcessBuilder(binary().toString(), "score", in.toString(),
          "--output-format", "ci").redirectErrorStream(true).redirectOutput(out.toFile()).start();
      if (!process.waitFor(2, TimeUnit.MINUTES)) {
        process.destroyForcibly();
        throw new IllegalStateException("kube-score did not finish within 2 minutes");
      }
      List<String> lines = Files.readAllLines(out, StandardCharsets.UTF_8);
      // Exit code 1 means "findings", anything else that kube-score itself failed.
      assertThat(process.exitValue()).withFailMessage("kube-score failed (%d):%n%s",
          process.exitValue(), String.join("\n", lines)).isBetween(0, 1);
      return lines.stream().filter(l -> !l.startsWith("[OK]") && !l.startsWith("[SKIPPED]"))
          .filter(l -> !l.isBlank()).toList();
    } finally {
      Files.deleteIfExists(in);
      Files.deleteIfExists(out);
    }
  }
}
