package io.warmgate.operator.chart;

import static org.assertj.core.api.Assertions.assertThat;

import io.warmgate.operator.testing.ApiServer;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** Runs the helm binary that hack/prereqs.sh built, on the chart under charts/warmgate. */
final class Helm {

  static final String VERSION = System.getProperty("warmgate.helm.version", "3.19.5");
  static final String KUBE_VERSION = ApiServer.KUBERNETES_VERSION;

  /** The output of one helm run. */
  record Result(int exitCode, String stdout, String stderr) {}

  private Helm() {}

  static Path chart() {
    return ApiServer.repoDir().resolve("charts/warmgate");
  }

  static Path binary() {
    Path helm = ApiServer.cacheDir().resolve("bin/helm-v" + VERSION + "/helm");
    assertThat(helm).withFailMessage("No helm v%s at %s; build it with hack/prereqs.sh (or point "
        + "-Dwarmgate.cache.dir at its cache)", VERSION, helm).isExecutable();
    return helm;
  }

  /** Runs {@code helm args...} and returns what it printed. */
  static Result run(String... args) throws IOException, InterruptedException {
    List<String> command = new ArrayList<>();
    command.add(binary().toString());
    command.addAll(List.of(args));
    Path out = Files.createTempFile("helm", ".out");
    Path err = Files.createTempFile("helm", ".err");
    try {
      Process process = new ProcessBuilder(command)
          .redirectOutput(out.toFile()).redirectError(err.toFile()).start();
      if (!process.waitFor(2, TimeUnit.MINUTES)) {
        process.destroyForcibly();
        throw new IllegalStateException("helm did not finish within 2 minutes: " + command);
      }
      return new Result(process.exitValue(), Files.readString(out, StandardCharsets.UTF_8),
          Files.readString(err, StandardCharsets.UTF_8));
    } finally {
      Files.deleteIfExists(out);
      Files.deleteIfExists(err);
    }
  }

  /** Runs {@code helm args...}, failing the test with helm's output unless it succeeds. */
  static String succeed(String... args) throws IOException, InterruptedException {
    Result result = run(args);
    assertThat(result.exitCode()).withFailMessage("helm %s failed (%d):%n%s%n%s",
        String.join(" ", args), result.exitCode(), result.stdout(), result.stderr()).isZero();
    return result.stdout();
  }

  /** {@code helm template} of the chart in {@code namespace} with extra {@code args}. */
  static String template(String namespace, String... args)
      throws IOException, InterruptedException {
    List<String> command = new ArrayList<>(List.of("template", "warmgate", chart().toString(),
        "--namespace", namespace, "--kube-version", KUBE_VERSION));
    command.addAll(List.of(args));
    return succeed(command.toArray(String[]::new));
  }
}
