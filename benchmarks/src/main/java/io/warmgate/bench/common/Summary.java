package io.warmgate.bench.common;

import java.util.ArrayList;
import java.util.List;

/**
 * The one-table summary of a benchmark run: each part adds its headline rows, warmgate beside its
 * baseline of the same run. {@code hack/bench.sh} copies the table into
 * docs/performance.md, so every figure there comes from a report, never from a hand.
 */
public final class Summary {

  /** One row: what is measured, the baseline's figure, warmgate's figure, and the bar. */
  public record Row(String what, String baseline, String warmgate, String bar) {}

  private final List<Row> rows = new ArrayList<>();

  public void add(String what, String baseline, String warmgate, String bar) {
    rows.add(new Row(what, baseline, warmgate, bar));
  }

  public String markdown() {
    StringBuilder md = new StringBuilder("| what | baseline | warmgate | bar |\n")
        .append("| --- | ---: | ---: | ---: |\n");
    for (Row r : rows) {
      md.append("| ").append(r.what()).append(" | ").append(r.baseline()).append(" | ")
          .append(r.warmgate()).append(" | ").append(r.bar()).append(" |\n");
    }
    return md.toString();
  }
}
