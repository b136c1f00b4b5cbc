package io.warmgate.operator.gate;

/**
 * A Preload warm job ({@code T:warm:<hash>}) as the operator reads it.
 *
 * @param state {@code Open}, {@code Running}, {@code Done} or {@code Failed}
 * @param target ids to load
 * @param filled ids loaded so far
 * @param errors ids that failed to load
 * @param message the preloading agent's last message, or null
 * @param hotSet how the operator chose the ids when it opened the job (such as {@code hot set:
 *     2,345 of 10,000 tracked ids expected to be read within l2Ttl 4m}), or null
 * @param revision the canary pod-template hash the job was opened for, or null (a job opened by
 *     an operator that did not record it)
 * @param rate ids per second the preloading agent loads at now ({@code rateInUse}: its adaptive
 *     rate under {@code warmup.originBudget}), or null when it reports none
 */
public record WarmJob(String state, long target, long filled, long errors, String message,
    String hotSet, String revision, Double rate) {

  /** A job whose agent reports no rate in use. */
  public WarmJob(String state, long target, long filled, long errors, String message,
      String hotSet, String revision) {
    this(state, target, filled, errors, message, hotSet, revision, null);
  }

  /** A job as an operator that records no revision reads it. */
  public WarmJob(String state, long target, long filled, long errors, String message,
      String hotSet) {
    this(state, target, filled, errors, message, hotSet, null);
  }

  /** Longest state or message text a summary quotes (summaries end up in status and Events). */
  static final int MAX_TEXT = 200;

  /**
   * Such as {@code warm job Running 1200/10000 loaded, 3 errors}. State and message come from
   * Valkey as they are, so each is cut to {@link #MAX_TEXT} chars.
   */
  public String summary() {
    return "warm job " + bounded(state) + " " + filled + "/" + target + " loaded"
        + (errors > 0 ? ", " + errors + " errors" : "")
        + (message != null && !message.isBlank() ? " (" + bounded(message) + ")" : "");
  }

  /** {@link #hotSet}, cut to {@link #MAX_TEXT} chars; null when absent or blank. */
  public String hotSetText() {
    return hotSet == null || hotSet.isBlank() ? null : bounded(hotSet);
  }

  private static String bounded(String text) {
    return text.length() <= MAX_TEXT ? text
        : text.substring(0, MAX_TEXT) + "... (" + text.length() + " chars)";
  }
}
