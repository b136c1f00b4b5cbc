package io.warmgate.bench.common;

import java.util.ArrayList;
import java.util.List;

/**
 * The one-table summary of a benchmark run: each part adds its headline rows, warmgate beside its
 * baseline of the same run, with its bar and whether the run met it. {@code hack/bench.sh} copies
 * the table into docs/performance.md, so every figure there comes from a report, never from a hand.
 */
public final class Summary {

  /** Whether a row's figure met its bar. */
  public enum Verdict {
    MET("met"),
    MISSED("**missed**"),
    /** A figure reported for the reader, with no bar to meet. */
    NO_BAR("–");

    private final String cell;

    Verdict(String cell) {
      this.cell = cell;
    }

    public static Verdict of(boolean met) {
      return met ? MET : MISSED;
    }

    /** As a report's table shows it: met, **missed** or –. */
    public String cell() {
      return cell;
    }
  }

  /** One row: what is measured, the baseline's figure, warmgate's figure, the bar, the verdict. */
  public record Row(String what, String baseline, String warmgate, String bar, Verdict verdict) {}

  private final List<Row> rows = new ArrayList<>();

  /** A row with a bar, and whether this run's figure met it. */
  public void add(String what, String baseline, String warmgate, String bar, boolean met) {
    rows.add(new Row(what, baseline, warmgate, bar, Verdict.of(met)));
  }

  /** A row with no bar: a figure reported for the reader. */
  public void add(String what, String baseline, String warmgate) {
    rows.add(new Row(what, baseline, warmgate, "", Verdict.NO_BAR));
  }

  public List<Row> rows() {
    return List.copyOf(rows);
  }

  public String markdown() {
    StringBuilder md = new StringBuilder("| what | baseline | warmgate | bar | met |\n")
        .append("| --- | ---: | ---: | ---: | :---: |\n");
    for (Row r : rows) {
      md.append("| ").append(r.what()).append(" | ").append(r.baseline()).append(" | ")
          .append(r.warmgate()).append(" | ").append(r.bar()).append(" | ")
          .append(r.verdict().cell).append(" |\n");
    }
    return md.toString();
  }
}
