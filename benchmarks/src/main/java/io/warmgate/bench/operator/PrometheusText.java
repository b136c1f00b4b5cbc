package io.warmgate.bench.operator;

/** Reads values out of the Prometheus text exposition format. */
final class PrometheusText {

  private PrometheusText() {}

  /**
   * Sums the samples of metric {@code name} whose label set contains {@code label} (any sample
   * when {@code label} is empty, those without labels included).
   *
   * @throws IllegalStateException if there is no such sample
   */
  static double sum(String text, String name, String label) {
    double total = 0;
    boolean found = false;
    for (String line : text.split("\n")) {
      boolean unlabelled = label.isEmpty() && line.startsWith(name + " ");
      if (unlabelled || (line.startsWith(name + "{") && line.contains(label))) {
        String value = line.substring(unlabelled ? name.length() : line.lastIndexOf('}') + 1)
            .trim().split("\\s+")[0];
        total += Double.parseDouble(value);
        found = true;
      }
    }
    if (!found) {
      throw new IllegalStateException("no sample of " + name + "{" + label + "} in /metrics");
    }
    return total;
  }

  /** As {@link #sum}, 0 when there is no such sample yet (a counter registered at first use). */
  static double sumOrZero(String text, String name, String label) {
    return text.lines().anyMatch(l -> l.startsWith(name + " ") || l.startsWith(name + "{"))
        ? sum(text, name, label) : 0;
  }
}
