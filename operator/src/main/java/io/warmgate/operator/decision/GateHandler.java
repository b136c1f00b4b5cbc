package io.warmgate.operator.decision;

import static io.warmgate.operator.http.HttpResponses.respond;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpHandler;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.io.IOException;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Serves {@code GET /gate/<namespace>/<policy>}: whether the new pods of a CachePolicy's target
 * are warm, as JSON ({@link VerdictJson}), for an Argo Rollouts analysis whose {@code web}
 * provider evaluates {@code successCondition: result.warm == true}.
 *
 * <p>A known policy always gets 200 with the JSON, warm or not, Valkey readable or not, so the
 * analysis measures instead of erroring; an unknown one 404, a malformed path 400, another method
 * than GET 405, the API server failing 503, each with {@code {"error": ...}} naming the value and
 * the fix.
 */
public final class GateHandler implements HttpHandler {

  /** The path prefix this handler serves. */
  public static final String PREFIX = "/gate/";
  static final String JSON_TYPE = "application/json; charset=utf-8";

  private static final Logger log = LoggerFactory.getLogger(GateHandler.class);
  private static final Pattern PATH =
      Pattern.compile("/gate/([a-z0-9]([-a-z0-9]*[a-z0-9])?)/([a-z0-9]([-.a-z0-9]*[a-z0-9])?)/?");

  private final Verdicts verdicts;

  public GateHandler(Verdicts verdicts) {
    this.verdicts = verdicts;
  }

  @Override
  public void handle(HttpExchange exchange) throws IOException {
    if (!"GET".equals(exchange.getRequestMethod())) {
      exchange.getResponseHeaders().set("Allow", "GET");
      respond(exchange, 405, JSON_TYPE, VerdictJson.error("method "
          + bounded(exchange.getRequestMethod()) + " is not served here; use GET"));
      return;
    }
    String path = exchange.getRequestURI().getPath();
    Matcher m = PATH.matcher(path);
    if (!m.matches()) {
      respond(exchange, 400, JSON_TYPE, VerdictJson.error("path " + bounded(path) + " is not "
          + "/gate/<namespace>/<policy> of a CachePolicy (lowercase DNS names), such as "
          + "/gate/shop/deals"));
      return;
    }
    Verdicts.Found found;
    try {
      found = verdicts.of(m.group(1), m.group(3));
    } catch (KubernetesClientException e) {
      log.debug("Reading CachePolicy {}/{} failed", m.group(1), m.group(3), e);
      respond(exchange, 503, JSON_TYPE, VerdictJson.error("reading CachePolicy " + m.group(1)
          + "/" + m.group(3) + " or its target from the API server failed: " + e.getMessage()
          + "; the operator needs get on cachepolicies, deployments, rollouts and list on "
          + "replicasets (see the chart's ClusterRole)"));
      return;
    }
    if (found.verdict() == null) {
      respond(exchange, 404, JSON_TYPE, VerdictJson.error(found.missing()));
      return;
    }
    respond(exchange, 200, JSON_TYPE, VerdictJson.of(found.policy(), found.verdict()));
  }

  /** At most 64 characters of what a client sent, so an answer never echoes much of it. */
  static String bounded(String text) {
    return text.length() <= 64 ? text : text.substring(0, 64) + "...";
  }
}
