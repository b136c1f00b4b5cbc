package io.warmgate.contract.valkey;

/**
 * The {@code state} field of a warm job ({@link ControlKeys#warmJob}), stored as the constant's
 * name: the operator opens a job {@code Open}; the pod that takes it makes it {@code Running},
 * then {@code Done}, or {@code Failed} when the job cannot be read. To retry, the operator sets
 * {@code Open} again.
 */
public enum WarmJobState {
  Open, Running, Done, Failed;

  /** Whether a job in this state is still to be worked on. */
  public boolean isActive() {
    return this == Open || this == Running;
  }

  /** The state stored as {@code text} (exactly, case included), or null for any other text. */
  public static WarmJobState named(String text) {
    for (WarmJobState state : values()) {
      if (state.name().equals(text)) {
        return state;
      }
    }
    return null;
  }
}
