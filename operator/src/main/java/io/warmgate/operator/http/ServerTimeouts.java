package io.warmgate.operator.http;

/**
 * The request and response bounds of the JDK's HTTP server, which it reads once, when the first
 * server of the JVM starts: every server of the operator applies them before it is created, so
 * whichever starts first (the webhook, or the probes' port when the webhook is off) sets them
 * for all. Without them a client that connects and stalls holds a server thread forever.
 */
public final class ServerTimeouts {

  /** Longest a connection may take to complete its TLS handshake and send a request's headers. */
  public static final int MAX_REQUEST_SECONDS = 10;
  /** Longest from a request's headers to the end of its response (the API server waits 10 s). */
  public static final int MAX_RESPONSE_SECONDS = 10;

  static {
    setIfAbsent("sun.net.httpserver.maxReqTime", Integer.toString(MAX_REQUEST_SECONDS));
    setIfAbsent("sun.net.httpserver.maxRspTime", Integer.toString(MAX_RESPONSE_SECONDS));
  }

  private ServerTimeouts() {}

  /** Sets the bounds unless set already (on the command line, or by an earlier call). */
  public static void apply() {
    // The static initializer did it.
  }

  private static void setIfAbsent(String property, String value) {
    if (System.getProperty(property) == null) {
      System.setProperty(property, value);
    }
  }
}
