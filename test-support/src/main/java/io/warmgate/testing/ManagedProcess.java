package io.warmgate.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.HttpURLConnection;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

/**
 * A child process whose stdout and stderr go to files under {@link WarmgatePaths#processLogDir()}
 * and which is killed (with its descendants) by {@link #kill()} or, at the latest, at JVM exit.
 */
final class ManagedProcess {

  private static final int TAIL_LINES = 30;

  private final String name;
  private final Process process;
  private final Path stdout;
  private final Path stderr;
  private final Cleanup.Registration registration;

  private ManagedProcess(String name, Process process, Path stdout, Path stderr) {
    this.name = name;
    this.process = process;
    this.stdout = stdout;
    this.stderr = stderr;
    this.registration = Cleanup.atExit(name, this::killNow);
  }

  /**
   * Starts {@code command}, appending its output to {@code <logName>.stdout.log} and
   * {@code <logName>.stderr.log}.
   *
   * @param extraEnv variables added to this JVM's environment; never null
   * @throws IllegalStateException if the process cannot be started
   */
  static ManagedProcess start(String logName, List<String> command, Map<String, String> extraEnv) {
    Path dir = WarmgatePaths.processLogDir();
    Path out = dir.resolve(logName + ".stdout.log");
    Path err = dir.resolve(logName + ".stderr.log");
    ProcessBuilder builder = new ProcessBuilder(command)
        .redirectOutput(ProcessBuilder.Redirect.appendTo(out.toFile()))
        .redirectError(ProcessBuilder.Redirect.appendTo(err.toFile()))
        .redirectInput(ProcessBuilder.Redirect.PIPE);
    builder.environment().putAll(extraEnv);
    try {
      appendMarker(out, command);
      appendMarker(err, command);
      Process process = builder.start();
      process.getOutputStream().close();
      return new ManagedProcess(logName, process, out, err);
    } catch (IOException e) {
      throw new IllegalStateException("cannot start " + String.join(" ", command) + ": " + e.getMessage(), e);
    }
  }

  private static void appendMarker(Path file, List<String> command) throws IOException {
    Files.writeString(file, "---- " + Instant.now() + " " + String.join(" ", command) + "\n",
        StandardCharsets.UTF_8, StandardOpenOption.CREATE, StandardOpenOption.APPEND);
  }

  boolean isAlive() {
    return process.isAlive();
  }

  long pid() {
    return process.pid();
  }

  Path stdout() {
    return stdout;
  }

  Path stderr() {
    return stderr;
  }

  /**
   * Polls {@code condition} until it holds; fails fast if the process exits first.
   *
   * @throws IllegalStateException on exit or timeout, with the tail of the process logs
   */
  void awaitReady(String what, Duration timeout, BooleanSupplier condition) {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (true) {
      if (condition.getAsBoolean()) {
        return;
      }
      if (!process.isAlive()) {
        throw new IllegalStateException(name + " exited with code " + process.exitValue()
            + " before " + what + "\n" + logTails());
      }
      if (System.nanoTime() > deadline) {
        kill();
        throw new IllegalStateException(name + " did not get " + what + " within " + timeout + "\n"
            + logTails());
      }
      try {
        Thread.sleep(25);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        kill();
        throw new IllegalStateException("interrupted while waiting for " + name, e);
      }
    }
  }

  /** Whether a process on loopback {@code port} answers {@code GET /healthz} with 200. */
  static boolean healthy(int port) {
    try {
      HttpURLConnection connection = (HttpURLConnection) URI.create("http://127.0.0.1:" + port
          + "/healthz").toURL().openConnection();
      connection.setConnectTimeout(200);
      connection.setReadTimeout(1_000);
      try {
        return connection.getResponseCode() == 200;
      } finally {
        connection.disconnect();
      }
    } catch (IOException e) {
      return false;
    }
  }

  /** Waits for the process to exit by itself and returns its exit code, killing it on timeout. */
  int awaitExit(Duration timeout) {
    try {
      if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
        kill();
        throw new IllegalStateException(name + " did not finish within " + timeout + "\n" + logTails());
      }
      registration.close();
      return process.exitValue();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      kill();
      throw new IllegalStateException("interrupted while waiting for " + name, e);
    }
  }

  /** Sends SIGKILL to the process and its descendants and waits until it is gone. Idempotent. */
  void kill() {
    killNow();
    registration.close();
  }

  private void killNow() {
    process.descendants().forEach(ProcessHandle::destroyForcibly);
    process.destroyForcibly();
    try {
      process.waitFor(10, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /** Returns the last lines of stdout and stderr, for error messages. */
  String logTails() {
    return "---- " + stdout + " (tail)\n" + tail(stdout) + "---- " + stderr + " (tail)\n" + tail(stderr);
  }

  private static String tail(Path file) {
    try {
      List<String> lines = Files.readAllLines(file, StandardCharsets.UTF_8);
      StringBuilder text = new StringBuilder();
      for (String line : lines.subList(Math.max(0, lines.size() - TAIL_LINES), lines.size())) {
        text.append(line).append('\n');
      }
      return text.toString();
    } catch (IOException | UncheckedIOException e) {
      return "(unreadable: " + e.getMessage() + ")\n";
    }
  }

  @Override
  public String toString() {
    return name + " (pid " + process.pid() + ")";
  }
}
