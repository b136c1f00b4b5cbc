package io.warmgate.operator.plan;

import static io.warmgate.operator.http.HttpResponses.respond;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpHandler;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.lettuce.core.RedisException;
import io.warmgate.operator.gate.PlanText;
import io.warmgate.operator.gate.ReleasePlan;
import io.warmgate.operator.gate.ReleasePlanner;
import io.warmgate.operator.model.CachePolicy;
import io.warmgate.operator.valkey.ValkeyClients;
import io.warmgate.operator.valkey.ValkeyCommands;
import java.io.IOException;
import java.time.Clock;
import java.util.concurrent.Semaphore;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Serves {@code GET /plan/<namespace>/<name>[?budget=<reads/s>]}: the {@link ReleasePlan} of a
 * CachePolicy's fleet as text, what {@code kubectl warmgate plan} prints. Read-only: it reads the
 * policy from the API server and the fleet's statistics through the Valkey connection this
 * replica's reconciler opened for the policy, so the leader answers. One plan is computed at a
 * time; a second request meanwhile is refused with 429, so the endpoint cannot be used to load
 * Valkey.
 */
public final class PlanHandler implements HttpHandler {

  private static final Logger log = LoggerFactory.getLogger(PlanHandler.class);
  private static final String TEXT = "text/plain; charset=utf-8";
  private static final Pattern PATH =
      Pattern.compile("/plan/([a-z0-9]([-a-z0-9]*[a-z0-9])?)/([a-z0-9]([-.a-z0-9]*[a-z0-9])?)/?");
  private static final Pattern BUDGET = Pattern.compile("(^|&)budget=([^&]*)");

  private final KubernetesClient client;
  private final ValkeyClients valkey;
  private final Clock clock;
  private final Semaphore oneAtATime = new Semaphore(1);

  public PlanHandler(KubernetesClient client, ValkeyClients valkey, Clock clock) {
    this.client = client;
    this.valkey = valkey;
    this.clock = clock;
  }

  @Override
  public void handle(HttpExchange exchange) throws IOException {
    if (!"GET".equals(exchange.getRequestMethod())) {
      respond(exchange, 405, TEXT, "only GET is served here\n");
      return;
    }
    Matcher path = PATH.matcher(exchange.getRequestURI().getPath());
    if (!path.matches()) {
      respond(exchange, 400, TEXT, "path " + bounded(exchange.getRequestURI().getPath())
          + " is not "
          + "/plan/<namespace>/<name> of a CachePolicy (lowercase DNS names)\n");
      return;
    }
    String namespace = path.group(1);
    String name = path.group(3);
    Integer budget;
    try {
      budget = budget(exchange.getRequestURI().getRawQuery());
    } catch (IllegalArgumentException e) {
      respond(exchange, 400, TEXT, e.getMessage() + "\n");
      return;
    }
    if (!oneAtATime.tryAcquire()) {
      exchange.getResponseHeaders().set("Retry-After", "2");
      respond(exchange, 429, TEXT, "another plan is being computed; ask again in a moment\n");
      return;
    }
    try {
      answer(exchange, namespace, name, budget);
    } finally {
      oneAtATime.release();
    }
  }

  private void answer(HttpExchange exchange, String namespace, String name, Integer budget)
      throws IOException {
    String policyName = namespace + "/" + name;
    CachePolicy policy = client.resources(CachePolicy.class).inNamespace(namespace)
        .withName(name).get();
    if (policy == null || policy.getSpec() == null) {
      respond(exchange, 404, TEXT, "CachePolicy " + policyName + " not found\n");
      return;
    }
    ValkeyCommands commands;
    try {
      commands = valkey.commands(ValkeyClients.user(namespace, name));
    } catch (IllegalStateException e) {
      respond(exchange, 503, TEXT, "this operator replica has no Valkey connection for "
          + "CachePolicy " + policyName + ": it does not lead (ask the holder of the operator's "
          + "Lease), or the policy's L2Reachable condition is not True (kubectl describe cpol "
          + name + " -n " + namespace + ")\n");
      return;
    }
    ReleasePlan.Plan plan;
    try {
      plan = ReleasePlanner.plan(commands, policy, budget, clock.instant());
    } catch (RedisException e) {
      log.debug("Planning CachePolicy {} failed", policyName, e);
      respond(exchange, 503, TEXT, "reading the fleet's statistics of CachePolicy " + policyName
          + " from Valkey failed: " + e.getMessage() + "\n");
      return;
    }
    String source = budget != null ? "--budget"
        : plan.inputs() != null && plan.inputs().budget() != null ? "warmup.originBudget" : null;
    respond(exchange, 200, TEXT,
        PlanText.render(policyName, plan, source));
  }

  /**
   * The {@code budget} query parameter: null when absent.
   *
   * @throws IllegalArgumentException naming the value when it is not a whole number ≥ 1
   */
  static Integer budget(String query) {
    if (query == null) {
      return null;
    }
    Matcher m = BUDGET.matcher(query);
    if (!m.find()) {
      return null;
    }
    String value = m.group(2);
    try {
      int budget = Integer.parseInt(value);
      if (budget >= 1) {
        return budget;
      }
    } catch (NumberFormatException e) {
      // refused below
    }
    throw new IllegalArgumentException("budget '" + bounded(value) + "' is not a whole number of origin "
        + "reads per second of at least 1; pass one such as --budget 12000");
  }

  /** At most 64 characters of what a client sent, so an answer never echoes much of it. */
  private static String bounded(String text) {
    return text.length() <= 64 ? text : text.substring(0, 64) + "...";
  }
}
