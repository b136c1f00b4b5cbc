package io.warmgate.operator.gate;

import java.time.Duration;
import java.util.Locale;

/** A {@link ReleasePlan} as the plain text {@code kubectl warmgate plan} prints. */
public final class PlanText {

  private static final String ROW = "%-72s %14s %14s %11s %12s %9s%n";

  private PlanText() {}

  /**
   * The plan for policy {@code policy} (namespace/name); {@code budgetSource} says where its
   * budget came from (such as {@code --budget} or {@code warmup.originBudget}), null when none
   * was given.
   */
  public static String render(String policy, ReleasePlan.Plan plan, String budgetSource) {
    StringBuilder out = new StringBuilder();
    if (plan.problem() != null) {
      return "CachePolicy " + policy + ": no plan: " + plan.problem() + "\n";
    }
    ReleasePlan.Inputs in = plan.inputs();
    ReleasePlan.Settings settings = plan.settings();
    out.append(format("CachePolicy %s: %,d pods, %,.0f lookups/s, the origin serves %,.0f "
        + "reads/s now%n", policy, in.pods(), in.requestRate(), in.steadyOriginRate()));
    out.append(format("A schema-changing release of every pod; hot set: %,d ids expected to be "
        + "read within l2Ttl %s (the hottest at %,.1f lookups/s)%n", in.ids().size(),
        GateDecision.seconds(in.l2Ttl()), in.rates().get(0)));
    out.append(budgetSource == null
        ? "Budget: none given (pass --budget, or set warmup.originBudget)\n"
        : format("Budget: %,d origin reads/s (%s)%n", in.budget(), budgetSource));
    out.append('\n');
    out.append(format(ROW, "strategy", "origin reads/s", "added over", "warm after",
        "extra reads", "held"));
    out.append(format(ROW, "", "at the peak", "first 10 s", "", "", "").stripTrailing())
        .append('\n');
    for (ReleasePlan.Row row : plan.rows()) {
      OriginForecast.Forecast f = row.forecast();
      out.append(format(ROW, "(" + row.letter() + ") " + row.strategy(),
          format("%,.0f", row.originAtPeak()), format("%,.0f", f.firstSeconds()),
          GateDecision.seconds(f.warmAfter()), format("%,.0f", f.extraReads()),
          held(row.hold())));
    }
    out.append("(b): the first step; (e), (f): one canary pod held for the preload, then the "
        + "rest; none counts the canary's own fills.\n\n");
    out.append("Settings to use:\n");
    out.append(format("  warmup.hotSetSize:   %,d%n", settings.hotSetSize()));
    out.append(format("  warmup.originBudget: %,d%s%n", settings.originBudget(),
        settings.budgetGiven() ? ""
            : "  (the least a Preload release of this hot set fits under; set your database's "
                + "spare reads/s if higher)"));
    out.append(format("  warmup.maxWait:      %s  (%.0f x the predicted hold)%n",
        GateDecision.seconds(settings.maxWait()), ReleasePlan.MAX_WAIT_MARGIN));
    if (!settings.fits()) {
      // (f) preloads the whole hot set when nothing smaller fits.
      OriginForecast.Forecast whole = plan.rows().get(plan.rows().size() - 1).forecast();
      out.append(format("Does not fit: with the whole hot set preloaded, a release still needs "
          + "%,.0f reads/s, %,.0f of them for ids outside the hot set, which preload cannot "
          + "warm; raise the budget or release fewer pods at a time.%n", whole.total(),
          whole.tail()));
    }
    out.append(format("Expected release: held about %s while %,d ids preload at %,.0f ids/s, "
        + "then the Rollout's own steps.%n", held(settings.hold()),
        settings.hotSetSize(), ReleasePlan.preloadRate(in)));
    return out.toString();
  }

  /** Tenths of a second below 10 s, where a preload of a small hot set ends. */
  private static String held(Duration hold) {
    return hold.toMillis() < 10_000 ? format("%.1f s", hold.toMillis() / 1000.0)
        : GateDecision.seconds(hold);
  }

  private static String format(String pattern, Object... values) {
    return String.format(Locale.ROOT, pattern, values);
  }
}
