package io.warmgate.bench.operator;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
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
    return parse(Jcmd.run(pid, "GC.class_histogram"));
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

  /**
   * The {@code n} classes whose bytes grew most since {@code before}, divided by {@code per} (the
   * objects added between the two), as a table.
   */
  String growthSince(ClassHistogram before, int per, int n) {
    Map<String, Row> earlier = new HashMap<>();
    before.rows().forEach(r -> earlier.put(r.className(), r));
    StringBuilder out = new StringBuilder("objects/added  bytes/added  class\n");
    rows.stream().map(r -> {
      Row b = earlier.get(r.className());
      return new Row(r.instances() - (b == null ? 0 : b.instances()),
          r.bytes() - (b == null ? 0 : b.bytes()), r.className());
    }).sorted(Comparator.comparingLong(Row::bytes).reversed()).limit(n)
        .forEach(r -> out.append(String.format(Locale.ROOT, "%13.1f  %11.0f  %s%n",
            (double) r.instances() / per, (double) r.bytes() / per, r.className())));
    return out.toString();
  }
}
