package io.warmgate.bench.operator;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The live objects of a JVM as {@code jcmd <pid> GC.class_histogram} prints them: the command runs
 * a full GC first, so {@link #totalBytes} is the live heap after a full GC.
 *
 * @param rows classes by bytes, largest first, as printed
 * @param totalBytes the {@code Total} line's bytes
 * @param text the command's output
 */
record ClassHistogram(List<Row> rows, long totalBytes, String text) {

  /** One class: {@code instances} objects taking {@code bytes} (shallow). */
  record Row(long instances, long bytes, String className) {}

  private static final Pattern ROW = Pattern.compile("^\\s*\\d+:\\s+(\\d+)\\s+(\\d+)\\s+(.+?)\\s*$");
  private static final Pattern TOTAL = Pattern.compile("^Total\\s+(\\d+)\\s+(\\d+)\\s*$");

  /**
   * Runs {@code jcmd pid GC.class_histogram} with the running JDK's {@code jcmd}.
   *
   * @throws IllegalStateException if jcmd fails or prints no {@code Total} line
   */
  static ClassHistogram of(long pid) {
    Path jcmd = Path.of(System.getProperty("java.home"), "bin", "jcmd");
    List<String> command = List.of(jcmd.toString(), Long.toString(pid), "GC.class_histogram");
    try {
      Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
      String out = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      if (!process.waitFor(60, TimeUnit.SECONDS) || process.exitValue() != 0) {
        throw new IllegalStateException(command + " failed: " + out);
      }
      return parse(out);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot run " + command + "; is the JDK's jcmd installed?",
          e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while running " + command, e);
    }
  }

  static ClassHistogram parse(String text) {
    List<Row> rows = new ArrayList<>();
    Long total = null;
    for (String line : text.split("\n")) {
      Matcher row = ROW.matcher(line);
      Matcher sum = TOTAL.matcher(line);
      if (row.matches()) {
        rows.add(new Row(Long.parseLong(row.group(1)), Long.parseLong(row.group(2)),
            row.group(3)));
      } else if (sum.matches()) {
        total = Long.parseLong(sum.group(2));
      }
    }
    if (total == null) {
      throw new IllegalStateException("no Total line in the class histogram: " + text);
    }
    return new ClassHistogram(List.copyOf(rows), total, text);
  }

  /** The first {@code n} rows as the command printed them (header included). */
  String top(int n) {
    String[] lines = text.split("\n");
    StringBuilder out = new StringBuilder();
    int rowsSeen = 0;
    for (String line : lines) {
      if (ROW.matcher(line).matches() && ++rowsSeen > n) {
        break;
      }
      out.append(line).append('\n');
    }
    return out.toString();
  }
}
