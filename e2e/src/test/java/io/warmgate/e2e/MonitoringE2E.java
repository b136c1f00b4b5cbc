package io.warmgate.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import io.fabric8.kubernetes.api.model.Pod;
import io.lettuce.core.cluster.api.sync.RedisClusterCommands;
import io.warmgate.contract.valkey.ControlKeys;
import io.warmgate.testing.KwokClusterExtension;
import io.warmgate.testing.PrometheusServer;
import io.warmgate.testing.WarmgatePaths;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The alerts and the dashboard against a real Prometheus: it scrapes the operator, the
 * deal-service pods (the {@code targets.json} local-pods writes) and a stream gateway while a
 * schema change is held at the gate, preloaded and released by the real Argo Rollouts controller.
 * Afterwards every metric each alert and each dashboard query reads exists with the labels the
 * query matches or groups on, every dashboard query returned data during the scenario, and every
 * rule evaluated without error. Local stack only (the in-cluster one has no scrape path).
 */
class MonitoringE2E {

  private static final Logger log = LoggerFactory.getLogger(MonitoringE2E.class);

  @RegisterExtension
  static final KwokClusterExtension cluster = new KwokClusterExtension();

  @RegisterExtension
  static final Stack stack = Stack.create();

  private static final String APP = "e2e-monitoring";
  private static final int DEALS = 1_000;
  private static final int HOT_SET = 100;
  private static final Path WORK = WarmgatePaths.processLogDir().resolve("e2e-monitoring");
  private static final Duration SCRAPE = Duration.ofSeconds(2);
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());

  @Test
  void everyAlertAndDashboardQueryFindsItsSeriesDuringAGateScenario() throws Exception {
    assertThat(stack).as("MonitoringE2E scrapes the operator, pods and gateway as local processes, "
        + "which the in-cluster stack (WARMGATE_E2E_IN_CLUSTER=1) does not run: run it on the "
        + "local stack").isInstanceOf(LocalStack.class);
    long began = System.nanoTime();
    Path rules = Repo.dir().resolve("charts/warmgate/files/prometheus-rules.yaml");
    JsonNode dashboard = JSON.readTree(
        Repo.dir().resolve("charts/warmgate/files/dashboards/warmgate-release.json").toFile());

    try (GateScenario scenario = GateScenario.prepare(cluster, stack, DEALS);
        CoalescedStreams streams = new CoalescedStreams(stack.valkeyAddress(), WORK, 5,
            Duration.ofSeconds(2));
        PrometheusServer prometheus = new PrometheusServer(WORK.resolve("prometheus"), SCRAPE)
            .scrapeStatic("warmgate-operator", List.of(stack.operatorMetricsAddress()),
                Map.of("namespace", "warmgate-system"), true)
            .scrapeFiles("warmgate-agents", podsDir().resolve("targets.json").toString())
            .scrapeStatic("stream-gateway", List.of(streams.address()),
                Map.of("namespace", "streams"), false)
            .ruleFile(rules)
            .start()) {
      RedisClusterCommands<String, String> valkey = scenario.valkey();
      Instant start = Instant.now();
      try (DealRollout app = new DealRollout(cluster.client(), cluster.namespace(), APP,
              stack, Map.of("mode", "Preload", "hotSetSize", HOT_SET, "preloadRate", 200,
                  "minCoverage", 90, "maxWait", "3m", "onTimeout", "Hold"), WORK, 2);
          Traffic traffic = new Traffic(app::ports, DEALS, 1.1, 80, 11)) {
        awaitServing(app, 2);
        await("hot set of " + HOT_SET).atMost(Duration.ofMinutes(2))
            .until(() -> valkey.zcard(new ControlKeys(app.cacheName).hot()) >= HOT_SET);
        app.setEnv("DEAL_SCHEMA_VERSION", "v2");
        await("canary held at the gate").atMost(Duration.ofMinutes(2)).pollInterval(Duration.ofMillis(200))
            .until(() -> recreateUninjectedPods(app) && app.paused()
                && List.of("Waiting", "Warming").contains(app.gate().get("phase")));
        // Prometheus has scraped the operator while it held the canary (the app's first hold).
        await("the held canary scraped").atMost(Duration.ofMinutes(1))
            .pollInterval(Duration.ofMillis(500))
            .until(() -> hasData(prometheus.query("max_over_time(warmgate_gate_held_seconds{policy=\""
                + APP + "\"}[" + secondsSince(start) + "s]) > 0")));
        await("rollout Healthy on v2").atMost(Duration.ofMinutes(3)).pollInterval(Duration.ofMillis(500))
            .until(() -> recreateUninjectedPods(app) && app.healthyAndDone());
        assertThat(app.gate().get("phase")).isEqualTo("Promoted");
        // Three scrapes of every target after the release, so every rate has points on both sides.
        Instant released = Instant.now();
        await("three scrapes of every target after the release").atMost(Duration.ofMinutes(1))
            .pollInterval(Duration.ofMillis(500))
            .until(() -> scrapesSince(prometheus, released) >= 3);

        assertThat(streams.completed.get()).as("streamed responses completed").isPositive();
        assertThat(targetsUp(prometheus)).as("scrape targets up").containsKeys(
            "warmgate-operator", "warmgate-agents", "stream-gateway");

        List<String> problems = new ArrayList<>();
        for (JsonNode rule : alerts(rules)) {
          String expr = rule.path("expr").asText();
          problems.addAll(missing(prometheus, "alert " + rule.path("alert").asText(), expr));
        }
        for (JsonNode panel : dashboard.path("panels")) {
          for (JsonNode target : panel.path("targets")) {
            String what = "panel '" + panel.path("title").asText() + "' query "
                + target.path("refId").asText();
            String expr = dashboardQuery(target.path("expr").asText());
            problems.addAll(missing(prometheus, what, expr));
            if (!hasData(prometheus.queryRange(expr, start, Instant.now(), Duration.ofSeconds(5)))) {
              problems.add(what + " returned no data during the scenario: " + expr);
            }
          }
        }
        for (JsonNode group : JSON.readTree(prometheus.get("/api/v1/rules")).path("data").path("groups")) {
          for (JsonNode rule : group.path("rules")) {
            if (!"ok".equals(rule.path("health").asText())) {
              problems.add("rule " + rule.path("name").asText() + " evaluates with health "
                  + rule.path("health").asText() + ": " + rule.path("lastError").asText());
            }
          }
        }
        assertThat(problems).as("what the alerts and the dashboard read, against Prometheus at %s",
            prometheus.url()).isEmpty();
      }
    } finally {
      log.info("MonitoringE2E ran for {} s", (System.nanoTime() - began) / 1_000_000_000L);
    }
  }

  /** As {@link GateScenario#awaitServing}, recreating pods the webhook missed. */
  private static void awaitServing(DealRollout app, int pods) {
    await(app.name + " Healthy with " + pods + " serving pods").atMost(Duration.ofMinutes(3))
        .pollInterval(Duration.ofMillis(500))
        .until(() -> recreateUninjectedPods(app) && app.healthyAndDone() && app.runningPods() == pods
            && app.ports().stream().allMatch(p -> Http.ok("http://127.0.0.1:" + p + "/healthz")));
  }

  /**
   * Deletes the app's pods that were admitted without the agent's variables (on a loaded machine
   * the first admissions can exceed the webhook's 5 s timeout, and failurePolicy Ignore admits the
   * pod unchanged), so that their ReplicaSet creates them again, as the runbook of
   * WarmgateAgentNotInjected says. Always true, for use in a wait condition.
   */
  private static boolean recreateUninjectedPods(DealRollout app) {
    for (Pod pod : cluster.client().pods().inNamespace(cluster.namespace())
        .withLabel("app", app.name).list().getItems()) {
      boolean injected = pod.getSpec().getContainers().stream()
          .flatMap(c -> c.getEnv() == null ? java.util.stream.Stream.empty() : c.getEnv().stream())
          .anyMatch(e -> "WARMGATE_CACHE_NAME".equals(e.getName()));
      if (!injected && pod.getMetadata().getDeletionTimestamp() == null) {
        log.warn("pod {} was admitted without the agent's variables; deleting it to have it "
            + "created again", pod.getMetadata().getName());
        cluster.client().resource(pod).withGracePeriod(0).delete();
      }
    }
    return true;
  }

  /** Where local-pods keeps the app's pods, its {@code targets.json} among them. */
  private static Path podsDir() throws java.io.IOException {
    return java.nio.file.Files.createDirectories(WORK.resolve(APP));
  }

  /** A dashboard query with Grafana's variables replaced by what selects everything. */
  static String dashboardQuery(String expr) {
    return expr.replace("$__rate_interval", "30s").replace("$namespace", ".*")
        .replace("$cache", ".*");
  }

  /**
   * What {@code expr} needs that Prometheus lacks: a metric without any series, or without a label
   * the query matches or groups on.
   */
  private static List<String> missing(PrometheusServer prometheus, String what, String expr)
      throws Exception {
    List<String> problems = new ArrayList<>();
    for (Map.Entry<String, Set<String>> need : PromQl.needs(expr).entrySet()) {
      JsonNode series = JSON.readTree(prometheus.series(need.getKey())).path("data");
      if (series.isEmpty()) {
        problems.add(what + ": no series of " + need.getKey());
        continue;
      }
      Set<String> labels = new HashSet<>();
      series.forEach(s -> s.fieldNames().forEachRemaining(labels::add));
      for (String label : need.getValue()) {
        if (!labels.contains(label)) {
          problems.add(what + ": " + need.getKey() + " has no label " + label + " (it has "
              + labels + ")");
        }
      }
    }
    return problems;
  }

  private static long secondsSince(Instant start) {
    return Math.max(1, Duration.between(start, Instant.now()).toSeconds() + 1);
  }

  /**
   * The fewest scrapes any target still scraped had since {@code start} (samples of its
   * {@code up} series), 0 while a job has no target yet.
   */
  private static long scrapesSince(PrometheusServer prometheus, Instant start) throws Exception {
    long seconds = Math.max(1, Duration.between(start, Instant.now()).toSeconds());
    // Only targets still scraped now: a pod the release removed just after `start` keeps a series
    // of one or two samples in the window, which would hold the minimum below 3 for good. A
    // target gone from service discovery has a staleness marker, so `up` no longer returns it.
    JsonNode result = JSON.readTree(prometheus.query("count_over_time(up[" + seconds + "s])"
            + " and on(job, instance) up"))
        .path("data").path("result");
    Set<String> jobs = new HashSet<>();
    long fewest = Long.MAX_VALUE;
    for (JsonNode series : result) {
      jobs.add(series.path("metric").path("job").asText());
      fewest = Math.min(fewest, series.path("value").get(1).asLong());
    }
    return jobs.containsAll(Set.of("warmgate-operator", "warmgate-agents", "stream-gateway"))
        ? fewest : 0;
  }

  /** Whether a query or query_range answer holds at least one sample that is a number. */
  private static boolean hasData(String answer) throws Exception {
    for (JsonNode result : JSON.readTree(answer).path("data").path("result")) {
      List<JsonNode> values = new ArrayList<>();
      result.path("values").forEach(values::add);
      if (result.has("value")) {
        values.add(result.path("value"));
      }
      for (JsonNode value : values) {
        String v = value.get(1).asText();
        if (!v.equals("NaN") && !v.endsWith("Inf")) {
          return true;
        }
      }
    }
    return false;
  }

  private static Map<String, Integer> targetsUp(PrometheusServer prometheus) throws Exception {
    Map<String, Integer> up = new LinkedHashMap<>();
    for (JsonNode target : JSON.readTree(prometheus.get("/api/v1/targets")).path("data")
        .path("activeTargets")) {
      if ("up".equals(target.path("health").asText())) {
        up.merge(target.path("labels").path("job").asText(), 1, Integer::sum);
      }
    }
    return up;
  }

  private static List<JsonNode> alerts(Path rules) throws Exception {
    List<JsonNode> alerts = new ArrayList<>();
    YAML.readTree(rules.toFile()).path("groups").forEach(g -> g.path("rules").forEach(r -> {
      if (r.has("alert")) {
        alerts.add(r);
      }
    }));
    return alerts;
  }
}
