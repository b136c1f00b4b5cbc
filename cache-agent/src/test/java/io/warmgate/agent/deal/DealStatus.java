package io.warmgate.agent.deal;

/** The lifecycle state of a {@link Deal}, as in the {@code Deals.Status} column. */
public enum DealStatus {
  /** Serving. */
  ACTIVE,
  /** Temporarily not serving. */
  PAUSED,
  /** Over for good. */
  ENDED
}
