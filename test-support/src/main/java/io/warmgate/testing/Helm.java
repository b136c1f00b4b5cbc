package io.warmgate.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Runs the helm binary that {@code hack/prereqs.sh} built on the chart under
 * {@code charts/warmgate}; the chart tests of the operator and the E2E suite's operator identity
 * both render it here.
 */
public final class Helm {

  public static final String VERSION = ToolBinaries.HELM_VERSION;
  /** The Kubernetes version helm renders and lints for: the one the tests run. */
  public static final String KUBE_VERSION = ToolBinaries.KUBERNETES_VERSION;

  /** The output of one helm run. */
  public record Result(int exitCode, String stdout, String stderr) {}

  private Helm() {}

  /** The chart's directory in this repository. */
  public static Path chart() {
    return WarmgatePaths.repoDir().resolve("charts/warmgate");
  }

  /**
   * Returns the helm binary.
   *
   * @throws IllegalStateException naming the path and {@code hack/prereqs.sh} if it is missing
   */
  public static Path binary() {
    return ToolBinaries.helm();
  }

  /** Runs {@code helm args...} and returns what it printed, whatever its exit code. */
  public static Result run(String... args) {
    List<String> command = new ArrayList<>();
    command.add(binary().toString());
    command.addAll(List.of(args));
    try {
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
    } catch (IOException e) {
      throw new UncheckedIOException("cannot run " + command, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while running " + command, e);
    }
  }

  /**
   * Runs {@code helm args...} and returns its standard output.
   *
   * @throws IllegalStateException with helm's output unless it exits with 0
   */
  public static String succeed(String... args) {
    Result result = run(args);
    if (result.exitCode() != 0) {
      throw new IllegalStateException("helm " + String.join(" ", args) + " failed ("
          + result.exitCode() + "):\n" + result.stdout() + "\n" + result.stderr());
    }
    return result.stdout();
  }

  /** {@code helm template} of the chart as release {@code warmgate} in {@code namespace}. */
  public static String template(String namespace, String... args) {
    List<String> command = new ArrayList<>(List.of("template", "warmgate", chart().toString(),
        "--namespace", namespace, "--kube-version", KUBE_VERSION));
    command.addAll(List.of(args));
    return succeed(command.toArray(String[]::new));
  }
}
