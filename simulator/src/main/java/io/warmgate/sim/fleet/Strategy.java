package io.warmgate.sim.fleet;

/**
 * The ways a new-schema version replaces the old fleet, with the letters and meanings of the
 * release benchmark's strategies ({@code io.warmgate.bench.release.Strategy}).
 */
public enum Strategy {
  ALL_AT_ONCE("a", "all new pods at once, no gate"),
  ONE_BY_ONE("b", "one pod at a time, each until its L1 is warm"),
  FIXED_WAIT("c", "canary fills L2 for a fixed 10 min, then the rest"),
  ORGANIC("d", "warmgate Organic"),
  PRELOAD("e", "warmgate Preload"),
  ORIGIN_BUDGET("f", "warmgate Preload, originBudget at the 65 % line");

  public final String letter;
  public final String label;

  Strategy(String letter, String label) {
    this.letter = letter;
    this.label = label;
  }

  boolean gated() {
    return this == ORGANIC || this == PRELOAD || this == ORIGIN_BUDGET;
  }

  @Override
  public String toString() {
    return "(" + letter + ") " + label;
  }
}
