package io.warmgate.bench.operator;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** Runs the running JDK's {@code jcmd} against another JVM of this machine. */
final class Jcmd {

  private Jcmd() {}

  /**
   * Returns what {@code jcmd <pid> <command...>} printed.
   *
   * @throws IllegalStateException if jcmd fails or takes over 60 s
   */
  static String run(long pid, String... command) {
    Path jcmd = Path.of(System.getProperty("java.home"), "bin", "jcmd");
    List<String> line = new ArrayList<>(List.of(jcmd.toString(), Long.toString(pid)));
    line.addAll(List.of(command));
    try {
      Process process = new ProcessBuilder(line).redirectErrorStream(true).start();
      String out = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      if (!process.waitFor(60, TimeUnit.SECONDS) || process.exitValue() != 0) {
        throw new IllegalStateException(line + " failed: " + out);
      }
      return out;
    } catch (IOException e) {
      throw new UncheckedIOException("cannot run " + line + "; is the JDK's jcmd installed?", e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while running " + line, e);
    }
  }
}
