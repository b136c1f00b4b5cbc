package io.warmgate.gateway.upstream;

/**
 * The upstream call failed. {@link #getMessage()} says how, with the URL and what to check, for
 * the log; {@link #clientMessage()} says what clients may see: never the upstream's address, its
 * error body or its headers.
 */
public final class UpstreamException extends RuntimeException {

  private static final long serialVersionUID = 1L;

  private final String clientMessage;

  /** Creates an exception whose message is fit for clients and logs alike. */
  public UpstreamException(String message) {
    this(message, message, null);
  }

  /**
   * Creates an exception with a message for clients and one for the log.
   *
   * @param cause the underlying failure, or null
   */
  public UpstreamException(String clientMessage, String logMessage, Throwable cause) {
    super(logMessage, cause);
    this.clientMessage = clientMessage;
  }

  /** What a client may be told. */
  public String clientMessage() {
    return clientMessage;
  }

  /** What a client may be told of {@code failure}: its client message, or a generic one. */
  public static String clientMessage(Throwable failure) {
    return failure instanceof UpstreamException e ? e.clientMessage()
        : "the upstream call failed; the gateway's log names the cause";
  }
}
