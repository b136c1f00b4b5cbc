package io.warmgate.operator.gate;

/**
 * A Preload warm job ({@code T:warm:<hash>}) as the operator reads it.
 *
 * @param state {@code Open}, {@code Running}, {@code Done} or {@code Failed}
 * @param target ids to load
 * @param filled ids loaded so far
 * @param errors ids that failed to load
 * @param message the preloading agent's last message, or null
 */
public record WarmJob(String state, long target, long filled, long errors, String message) {

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

  private static String bounded(String text) {
    return text.length() <= MAX_TEXT ? text
        : text.substring(0, MAX_TEXT) + "... (" + text.length() + " chars)";
  }
}
