package io.warmgate.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Runs {@link BenchMain} in its quick mode in a JVM of its own, as {@code hack/bench.sh} with
 * {@code BENCH_QUICK=1} does, and returns the report it wrote: the smoke tests' common start.
 */
final class QuickBench {

  private QuickBench() {}

  /**
   * Runs {@code BenchMain --quick --out out} with {@code args}, its output in {@code out/run.log},
   * and returns {@code out/report.md}; fails unless it ends with status 0 within {@code limit}.
   */
  static String run(Path out, Duration limit, String... args) throws Exception {
    String classpath = "target/classes" + File.pathSeparator
        + Files.readString(Path.of("target", "classpath.txt")).trim();
    List<String> command = new ArrayList<>(List.of(
        Path.of(System.getProperty("java.home"), "bin", "java").toString(),
        "-Dwarmgate.repo.dir=" + Path.of("..").toAbsolutePath().normalize(),
        "-cp", classpath, BenchMain.class.getName(), "--quick", "--out", out.toString()));
    command.addAll(List.of(args));
    Files.createDirectories(out);
    Process process = new ProcessBuilder(command)
        .redirectErrorStream(true)
        .redirectOutput(out.resolve("run.log").toFile())
        .start();
    assertThat(process.waitFor(limit.toMillis(), TimeUnit.MILLISECONDS))
        .as("quick benchmarks %s finish within %s", List.of(args), limit).isTrue();
    assertThat(process.exitValue()).as("exit status; see " + out.resolve("run.log")).isZero();
    return Files.readString(out.resolve("report.md"));
  }
}
