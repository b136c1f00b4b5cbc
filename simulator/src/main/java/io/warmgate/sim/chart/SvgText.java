package io.warmgate.sim.chart;

/** What the plain-SVG charts of the simulator and the benchmarks share: axis tops and escaping. */
public final class SvgText {

  private SvgText() {}

  /** 1, 2 or 5 times a power of ten, at least {@code value}: the top of a chart's axis. */
  public static long niceCeiling(long value) {
    long power = 1;
    while (power * 10 < value) {
      power *= 10;
    }
    for (long m : new long[] {1, 2, 5, 10}) {
      if (m * power >= value) {
        return m * power;
      }
    }
    return 10 * power;
  }

  /** {@code text} with the characters XML gives a meaning escaped. */
  public static String escape(String text) {
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;");
  }
}
