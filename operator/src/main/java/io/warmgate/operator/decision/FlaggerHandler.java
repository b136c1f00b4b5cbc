package io.warmgate.operator.decision;

import static io.warmgate.operator.http.HttpResponses.respond;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpHandler;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.io.IOException;
import java.io.InputStream;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Serves {@code POST /flagger/confirm-promotion}, Flagger's {@code confirm-promotion} webhook:
 * 200 when the Canary's new pods are warm, 403 while they are not, so Flagger holds the
 * promotion and asks again at its next analysis interval (Flagger treats every status above 202
 * as "not yet").
 *
 * <p>The body is Flagger's webhook payload, {@code {"name", "namespace", "phase", "checksum",
 * "metadata"}}. The policy is {@code metadata.policy} when the webhook sets it, else the one
 * policy of the Canary's namespace that targets the Deployment named like the Canary. The
 * answer's body is the JSON of {@code GET /gate/}; an unknown policy gets 404, a malformed body
 * 400, another method 405, each of which Flagger also reads as "hold".
 */
public final class FlaggerHandler implements HttpHandler {

  /** The path this handler serves. */
  public static final String PATH = "/flagger/confirm-promotion";
  /** The largest body read; Flagger's payload is a few hundred bytes. */
  static final int MAX_BODY = 64 * 1024;

  private static final Logger log = LoggerFactory.getLogger(FlaggerHandler.class);
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Pattern DNS = Pattern.compile("[a-z0-9]([-.a-z0-9]*[a-z0-9])?");

  private final Verdicts verdicts;

  public FlaggerHandler(Verdicts verdicts) {
    this.verdicts = verdicts;
  }

  @Override
  public void handle(HttpExchange exchange) throws IOException {
    String type = GateHandler.JSON_TYPE;
    if (!PATH.equals(exchange.getRequestURI().getPath())) {
      respond(exchange, 404, type, VerdictJson.error("path "
          + GateHandler.bounded(exchange.getRequestURI().getPath()) + " is not served; "
          + "Flagger's confirm-promotion webhook is POST " + PATH));
      return;
    }
    if (!"POST".equals(exchange.getRequestMethod())) {
      exchange.getResponseHeaders().set("Allow", "POST");
      respond(exchange, 405, type, VerdictJson.error("method "
          + GateHandler.bounded(exchange.getRequestMethod()) + " is not served here; Flagger "
          + "POSTs its webhook payload"));
      return;
    }
    Payload payload;
    try {
      payload = Payload.read(exchange.getRequestBody());
    } catch (IllegalArgumentException e) {
      respond(exchange, 400, type, VerdictJson.error(e.getMessage()));
      return;
    }
    Verdicts.Found found;
    try {
      found = verdicts.forCanary(payload.namespace(), payload.name(), payload.policy());
    } catch (KubernetesClientException e) {
      log.debug("Finding the policy of Canary {}/{} failed", payload.namespace(), payload.name(),
          e);
      respond(exchange, 503, type, VerdictJson.error("reading the policy of Canary "
          + payload.namespace() + "/" + payload.name() + " from the API server failed: "
          + e.getMessage()));
      return;
    }
    if (found.verdict() == null) {
      respond(exchange, 404, type, VerdictJson.error(found.missing()));
      return;
    }
    respond(exchange, found.verdict().warm() ? 200 : 403, type,
        VerdictJson.of(found.policy(), found.verdict()));
  }

  /**
   * The parts of Flagger's payload read here.
   *
   * @param policy {@code metadata.policy}, or null
   */
  record Payload(String name, String namespace, String policy) {

    /** @throws IllegalArgumentException naming what is wrong and the fix */
    static Payload read(InputStream body) throws IOException {
      byte[] bytes = body.readNBytes(MAX_BODY + 1);
      if (bytes.length > MAX_BODY) {
        throw new IllegalArgumentException("the body is over " + MAX_BODY + " bytes; Flagger's "
            + "webhook payload is {\"name\", \"namespace\", \"phase\", \"checksum\", "
            + "\"metadata\"}");
      }
      JsonNode json;
      try {
        json = JSON.readTree(bytes);
      } catch (JsonProcessingException e) {
        throw new IllegalArgumentException("the body is not JSON (" + e.getOriginalMessage()
            + "); send Flagger's webhook payload {\"name\": <canary>, \"namespace\": <ns>, ...}");
      }
      if (json == null || !json.isObject()) {
        throw new IllegalArgumentException("the body is not a JSON object; send Flagger's "
            + "webhook payload {\"name\": <canary>, \"namespace\": <ns>, ...}");
      }
      String policy = json.path("metadata").path("policy").isTextual()
          ? json.path("metadata").path("policy").asText() : null;
      return new Payload(name(json, "name"), name(json, "namespace"),
          policy == null ? null : checked("metadata.policy", policy));
    }

    private static String name(JsonNode json, String field) {
      JsonNode value = json.get(field);
      if (value == null || !value.isTextual() || value.asText().isEmpty()) {
        throw new IllegalArgumentException("the payload has no \"" + field + "\" string; Flagger "
            + "sends the Canary's name and namespace, a hand-made call must too");
      }
      return checked(field, value.asText());
    }

    private static String checked(String field, String value) {
      if (value.length() > 253 || !DNS.matcher(value).matches()) {
        throw new IllegalArgumentException(field + " '" + GateHandler.bounded(value) + "' is not "
            + "a Kubernetes name (lowercase letters, digits, '-' and '.'); fix the webhook's "
            + (field.startsWith("metadata") ? "metadata" : "Canary"));
      }
      return value;
    }
  }
}
