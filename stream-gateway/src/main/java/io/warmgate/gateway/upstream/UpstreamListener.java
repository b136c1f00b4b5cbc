package io.warmgate.gateway.upstream;

/**
 * Receives one upstream response. Called on one Vert.x context, in order; after {@link #onEnd()}
 * or {@link #onError(Throwable)} (exactly one of them, unless the call was cancelled) nothing
 * more is called.
 */
public interface UpstreamListener {

  /** A complete event arrived. */
  void onEvent(UpstreamEvent event);

  /** The upstream closed the response normally. */
  void onEnd();

  /** The call failed: connection, status, timeout or a broken response. */
  void onError(Throwable failure);
}
