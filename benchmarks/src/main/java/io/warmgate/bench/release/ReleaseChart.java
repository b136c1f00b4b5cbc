package io.warmgate.bench.release;

import io.warmgate.sim.chart.SvgText;
import io.warmgate.sim.spanner.SpannerCapacity;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.function.Function;

/**
 * Draws origin reads per second over time, or the CPU a modelled origin was asked for, one line
 * per strategy, as plain SVG: the graph to hold next to the database's CPU graph. The release
 * starts at 0 s; a dot on each line marks the last old pod leaving, a dashed line of the
 * strategy's colour the gate's release; grey lines mark levels such as the capacity.
 */
final class ReleaseChart {

  private static final String[] COLOURS = {"#d62728", "#ff7f0e", "#8c564b", "#2ca02c", "#1f77b4",
      "#9467bd"};
  private static final int WIDTH = 1100;
  private static final int HEIGHT = 420;
  private static final int LEFT = 70;
  private static final int RIGHT = 360;
  private static final int TOP = 56;
  private static final int BOTTOM = 50;

  private ReleaseChart() {}

  /** A horizontal line at {@code value}, in the chart's unit. */
  record Level(double value, String label) {}

  /** Origin reads per second. */
  static String svg(List<ReleaseResult> results, String subtitle) {
    return draw(results, subtitle, "Origin reads per second during a schema-changing release",
        "origin reads/s (ids)", r -> r.timeline().stream().map(Long::doubleValue).toList(),
        List.of());
  }

  /**
   * The CPU each second asked of the modelled origin, % of its capacity, with its 100 % and
   * recommended lines.
   */
  static String cpuSvg(List<ReleaseResult> results, String subtitle) {
    return draw(results, subtitle, "CPU asked of the modelled Spanner instance during a "
        + "schema-changing release", "CPU asked of the origin, % of capacity",
        r -> r.originLoad().cpuTimeline().stream().map(c -> 100 * c).toList(),
        List.of(new Level(100, "capacity"), new Level(
            SpannerCapacity.RECOMMENDED_CPU_PERCENT, "recommended max")));
  }

  private static String draw(List<ReleaseResult> results, String subtitle, String title,
      String yLabel, Function<ReleaseResult, List<Double>> series,
      List<Level> levels) {
    int lead = results.get(0).leadSeconds();
    List<List<Double>> values = results.stream().map(series).toList();
    int seconds = values.stream().mapToInt(List::size).max().orElse(1);
    double top = Math.max(1, values.stream().flatMap(List::stream)
        .mapToDouble(Double::doubleValue).max().orElse(1));
    for (Level level : levels) {
      top = Math.max(top, level.value());
    }
    long yMax = SvgText.niceCeiling((long) Math.ceil(top));
    double plotW = WIDTH - LEFT - RIGHT;
    double plotH = HEIGHT - TOP - BOTTOM;
    StringBuilder svg = new StringBuilder();
    svg.append(String.format(Locale.ROOT, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" "
        + "height=\"%d\" font-family=\"sans-serif\" font-size=\"12\">%n", WIDTH, HEIGHT));
    svg.append("<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n");
    svg.append(String.format(Locale.ROOT, "<text x=\"%d\" y=\"18\" font-size=\"15\" font-weight=\"bold\">"
        + "%s</text>%n", LEFT, SvgText.escape(title)));
    List<String> lines = wrap(subtitle, 150);
    for (int i = 0; i < lines.size(); i++) {
      svg.append(String.format(Locale.ROOT, "<text x=\"%d\" y=\"%d\" fill=\"#555\">%s</text>%n", LEFT,
          34 + 14 * i, SvgText.escape(lines.get(i))));
    }
    // Axes, grid and labels.
    for (int i = 0; i <= 5; i++) {
      double y = TOP + plotH - plotH * i / 5;
      svg.append(String.format(Locale.ROOT, "<line x1=\"%d\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" "
          + "stroke=\"#e5e5e5\"/>%n<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\">%,d</text>%n",
          LEFT, y, LEFT + plotW, y, LEFT - 6, y + 4, yMax * i / 5));
    }
    int step = Math.max(5, (int) Math.ceil(seconds / 12.0 / 5) * 5);
    for (int s = -lead; s <= seconds - lead; s++) {
      if (s % step == 0) {
        double x = LEFT + plotW * (s + lead) / seconds;
        svg.append(String.format(Locale.ROOT, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">"
            + "%d</text>%n", x, TOP + plotH + 16, s));
      }
    }
    svg.append(String.format(Locale.ROOT, "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">seconds "
        + "since the first new pod (compressed time)</text>%n", LEFT + plotW / 2, HEIGHT - 12));
    svg.append(String.format(Locale.ROOT, "<text transform=\"translate(16,%.1f) rotate(-90)\" "
        + "text-anchor=\"middle\">%s</text>%n", TOP + plotH / 2, SvgText.escape(yLabel)));
    svg.append(String.format(Locale.ROOT, "<rect x=\"%d\" y=\"%d\" width=\"%.1f\" height=\"%.1f\" "
        + "fill=\"none\" stroke=\"#999\"/>%n", LEFT, TOP, plotW, plotH));
    double x0 = LEFT + plotW * lead / seconds;
    svg.append(String.format(Locale.ROOT, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%.1f\" "
        + "stroke=\"#000\" stroke-width=\"1.5\"/>%n<text x=\"%.1f\" y=\"%d\">release starts</text>%n",
        x0, TOP, x0, TOP + plotH, x0 + 4, TOP + 12));
    for (Level level : levels) {
      double y = TOP + plotH - plotH * level.value() / yMax;
      svg.append(String.format(Locale.ROOT, "<line x1=\"%d\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" "
          + "stroke=\"#777\" stroke-dasharray=\"2,3\"/>%n<text x=\"%.1f\" y=\"%.1f\" "
          + "text-anchor=\"end\" fill=\"#555\">%s</text>%n", LEFT, y, LEFT + plotW, y,
          LEFT + plotW - 4, y - 4, SvgText.escape(level.label())));
    }
    for (int i = 0; i < results.size(); i++) {
      ReleaseResult r = results.get(i);
      List<Double> line = values.get(i);
      String colour = COLOURS[i % COLOURS.length];
      StringBuilder points = new StringBuilder();
      for (int s = 0; s < line.size(); s++) {
        double x = LEFT + plotW * (s + 0.5) / seconds;
        double y = TOP + plotH - plotH * line.get(s) / yMax;
        points.append(String.format(Locale.ROOT, "%.1f,%.1f ", x, y));
      }
      svg.append(String.format(Locale.ROOT, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"2\" "
          + "points=\"%s\"/>%n", colour, points.toString().trim()));
      double xDone = x0 + plotW * r.releaseSeconds() / seconds;
      int bucket = (int) Math.min(line.size() - 1, lead + Math.floor(r.releaseSeconds()));
      double yDone = TOP + plotH - plotH * line.get(bucket) / yMax;
      svg.append(String.format(Locale.ROOT, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"4\" fill=\"%s\"/>%n",
          xDone, yDone, colour));
      if (r.gateSeconds() != null) {
        double xGate = x0 + plotW * r.gateSeconds() / seconds;
        svg.append(String.format(Locale.ROOT, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%.1f\" "
            + "stroke=\"%s\" stroke-dasharray=\"5,4\"/>%n", xGate, TOP, xGate, TOP + plotH, colour));
      }
      double ly = TOP + 14 + i * 34;
      svg.append(String.format(Locale.ROOT, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" "
          + "stroke=\"%s\" stroke-width=\"3\"/>%n<text x=\"%.1f\" y=\"%.1f\">%s</text>%n"
          + "<text x=\"%.1f\" y=\"%.1f\" fill=\"#555\">%,d reads, peak %,.0f/s</text>%n",
          LEFT + plotW + 12, ly, LEFT + plotW + 32, ly, colour, LEFT + plotW + 38, ly + 4,
          SvgText.escape(r.strategy().toString()), LEFT + plotW + 38, ly + 18, r.originReads(),
          r.peakPerSecond()));
    }
    double ny = TOP + 14 + results.size() * 34;
    svg.append(String.format(Locale.ROOT, "<text x=\"%.1f\" y=\"%.1f\" fill=\"#555\">dot: last old pod"
        + " gone</text>%n<text x=\"%.1f\" y=\"%.1f\" fill=\"#555\">dashed: gate released</text>%n",
        LEFT + plotW + 12, ny, LEFT + plotW + 12, ny + 16));
    svg.append("</svg>\n");
    return svg.toString();
  }

  /** Splits {@code text} at spaces into lines of at most {@code width} characters. */
  private static List<String> wrap(String text, int width) {
    List<String> lines = new ArrayList<>();
    StringBuilder line = new StringBuilder();
    for (String word : text.split(" ")) {
      if (line.length() > 0 && line.length() + 1 + word.length() > width) {
        lines.add(line.toString());
        line.setLength(0);
      }
      if (line.length() > 0) {
        line.append(' ');
      }
      line.append(word);
    }
    lines.add(line.toString());
    return lines;
  }
}
