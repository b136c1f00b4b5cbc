package io.warmgate.bench.release;

/** The ways a new-schema version replaces the old fleet, from today's practices to warmgate's. */
enum Strategy {
  ALL_AT_ONCE("a", "all new pods at once, no gate"),
  ONE_BY_ONE("b", "one pod at a time, each until its L1 is warm"),
  FIXED_WAIT("c", "canary fills L2 for a fixed 10 min, then the rest"),
  ORGANIC("d", "warmgate Organic"),
  PRELOAD("e", "warmgate Preload"),
  /** Needs the modelled origin: the budget is its recommended CPU line. */
  PRELOAD_BUDGET("f", "warmgate Preload, originBudget at the origin's 65 % line");

  final String letter;
  final String label;

  Strategy(String letter, String label) {
    this.letter = letter;
    this.label = label;
  }

  boolean gated() {
    return this == ORGANIC || this == PRELOAD || this == PRELOAD_BUDGET;
  }

  @Override
  public String toString() {
    return "(" + letter + ") " + label;
  }
}
