package io.warmgate.agent.hot;

import java.util.Map;

/** The samples a {@link HotKeys} holds, for tests outside its package. */
public final class Samples {

  private Samples() {}

  /** Removes the buffered samples of {@code hotKeys} and returns how often each id was sampled. */
  public static Map<String, Integer> drain(HotKeys hotKeys) {
    return hotKeys.drain();
  }
}
