package io.warmgate.operator.http;

import com.sun.net.httpserver.HttpExchange;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;

/** Writes a whole response on the JDK HTTP server, for the probes, metrics and the webhook. */
public final class HttpResponses {

  private HttpResponses() {}

  /** Sends {@code body} (UTF-8) with status {@code code} and content type {@code type}. */
  public static void respond(HttpExchange exchange, int code, String type, String body)
      throws IOException {
    byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
    exchange.getResponseHeaders().set("Content-Type", type);
    exchange.sendResponseHeaders(code, bytes.length);
    try (OutputStream out = exchange.getResponseBody()) {
      out.write(bytes);
    }
  }
}
