package io.warmgate.gateway.upstream;

/** The upstream call failed; the message says how, with the URL and what to check. */
public final class UpstreamException extends RuntimeException {

  private static final long serialVersionUID = 1L;

  /** Creates an exception with a message for subscribers and logs. */
  public UpstreamException(String message) {
    super(message);
  }

  /** Creates an exception with a message and the underlying cause. */
  public UpstreamException(String message, Throwable cause) {
    super(message, cause);
  }
}
