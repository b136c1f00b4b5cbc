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

  /** Such as {@code warm job Running 1200/10000 loaded, 3 errors}. */
  public String summary() {
    return "warm job " + state + " " + filled + "/" + target + " loaded"
        + (errors > 0 ? ", " + errors + " errors" : "")
        + (message != null && !message.isBlank() ? " (" + message + ")" : "");
  }
}
