package io.warmgate.gateway.upstream;

/** A running upstream call. Thread-safe: every method may be called from any thread. */
public interface UpstreamCall {

  /** Stops reading from the upstream until {@link #resume()} (flow control). */
  void pause();

  /** Reads again after {@link #pause()}. */
  void resume();

  /** Aborts the call (resets the connection); the listener hears nothing more. Idempotent. */
  void cancel();
}
