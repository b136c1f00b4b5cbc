package io.warmgate.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import io.lettuce.core.cluster.api.sync.RedisClusterCommands;
import io.warmgate.contract.valkey.AgentEntry;
import io.warmgate.contract.valkey.ControlKeys;
import io.warmgate.testing.KwokClusterExtension;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The gate's timings on the whole stack: the real Argo Rollouts controller, the operator process,
 * deal-service pods whose agents heartbeat for real. A schema change is released once warm, then
 * same-schema revisions are released as {@code Skipped}; for each, one poller records when the
 * canary paused at its gate step, when its agent registered and when the pause was released. kwok
 * marks pods Ready before a local pod's JVM has started, so each gate figure runs from the later of
 * "paused" and "registered" (and, for the schema change, "coverage reached"). Writes the samples to
 * {@code gate-timings.json} in the directory of {@value #OUT_PROPERTY} (default: target), which
 * {@code hack/bench.sh} puts into the benchmark report. Asserts the outcomes, and the durations
 * a single run can hold to: each same-schema release within DESIGN.md's 5 s, and the schema
 * change's one reaction within {@value #REACTION_BOUND_MS} ms (see there why not the 1 s p95 bar,
 * which the benchmark report checks).
 */
class GateTimingE2E {

  static final String OUT_PROPERTY = "warmgate.gate.timings";
  private static final int DEALS = 2_000;
  private static final int HOT_SET = 200;
  private static final int MIN_COVERAGE = 95;
  private static final int SAME_SCHEMA_RELEASES = 3;
  private static final long POLL_MILLIS = 50;
  /** DESIGN.md: same-schema release, gate step reached → released, ≤ 5 s. */
  static final long SAME_SCHEMA_BAR_MS = 5_000;
  /**
   * The bound on the schema change's one reaction, warm → released. DESIGN.md's bar is 1 s at
   * the 95th percentile, which one sample on a shared 2-core machine cannot show; the gate passes
   * a held canary every second, and its pass and the Argo controller's step take a few hundred ms
   * (the report's figures: 0.5-0.8 s), so beyond 3 s the release waited for something other than
   * the criterion: a later pass, a timeout, maxWait.
   */
  static final long REACTION_BOUND_MS = 3_000;

  @RegisterExtension
  static final KwokClusterExtension cluster = new KwokClusterExtension();

  @RegisterExtension
  static final Stack stack = Stack.create();

  @RegisterExtension
  @Order(GateScenario.LAST)
  static final GateScenario scenario = GateScenario.of(cluster, stack, DEALS);

  private static RedisClusterCommands<String, String> valkey;

  @BeforeAll
  static void setUp() {
    valkey = scenario.valkey();
  }

  /** One release as the poller saw it, in epoch ms (0 = never seen). */
  record Release(String kind, String canaryHash, long paused, long registered, long warm,
      long released, String phase) {

    /** From the last precondition (paused, agent registered, warm) to the release. */
    long gateMillis() {
      return released - Math.max(paused, Math.max(registered, warm));
    }
  }

  @Test
  void releasesAreTimedFromTheLastPrecondition() throws Exception {
    List<Release> releases = new ArrayList<>();
    try (DealRollout app = new DealRollout(cluster.client(), cluster.namespace(), "e2e-timing",
            stack, Map.of("mode", "Preload", "hotSetSize", HOT_SET, "preloadRate", 100,
                "minCoverage", MIN_COVERAGE, "maxWait", "5m", "onTimeout", "Hold"),
            RolloutGateE2E.WORK);
        Traffic traffic = new Traffic(app::ports, DEALS, 1.1, 150, 42)) {
      GateScenario.awaitServing(app);
      await("hot set of " + HOT_SET).atMost(Duration.ofMinutes(3))
          .until(() -> valkey.zcard(new ControlKeys(app.cacheName).hot()) >= HOT_SET);
      releases.add(watch(app, "schema change", () -> app.setEnv("DEAL_SCHEMA_VERSION", "v2")));
      for (int i = 0; i < SAME_SCHEMA_RELEASES; i++) {
        int revision = i + 2;
        releases.add(watch(app, "same schema", () -> app.setEnv("APP_REVISION",
            Integer.toString(revision))));
      }
    }
    write(releases);
    assertThat(releases.get(0).phase()).isEqualTo("Promoted");
    assertThat(releases.subList(1, releases.size())).extracting(Release::phase)
        .containsOnly("Skipped");
    assertThat(releases).allSatisfy(r -> assertThat(r.released()).as("release seen").isPositive());
    Release schemaChange = releases.get(0);
    assertThat(schemaChange.warm()).as("coverage reached, seen by the poller").isPositive();
    assertThat(schemaChange.gateMillis()).as("schema change: last precondition (warm) → released, "
        + "ms; %s", releases).isBetween(0L, REACTION_BOUND_MS);
    assertThat(releases.subList(1, releases.size())).allSatisfy(r ->
        assertThat(r.gateMillis()).as("same schema: last precondition (paused, agent registered) "
            + "→ released, ms; %s", r).isBetween(0L, SAME_SCHEMA_BAR_MS));
  }

  /** Applies {@code change} and polls until the rollout is Healthy on the new revision. */
  private static Release watch(DealRollout app, String kind, Runnable change) {
    Object stableBefore = app.rolloutStatus().get("stableRS");
    change.run();
    String canary = null;
    long paused = 0;
    long registered = 0;
    long warm = 0;
    long released = 0;
    long deadline = System.currentTimeMillis() + Duration.ofMinutes(5).toMillis();
    while (System.currentTimeMillis() < deadline) {
      long now = System.currentTimeMillis();
      Map<String, Object> status = app.rolloutStatus();
      Object current = status.get("currentPodHash");
      if (current != null && !current.equals(stableBefore)) {
        canary = current.toString();
        if (paused == 0 && app.paused()) {
          paused = now;
        }
        if (registered == 0 && registeredAgent(app.cacheName, canary)) {
          registered = now;
        }
        String schema = (String) app.gate().get("canarySchemaHash");
        if (warm == 0 && kind.equals("schema change") && schema != null
            && coverage(app.cacheName, schema) >= MIN_COVERAGE) {
          warm = now;
        }
        if (paused != 0 && released == 0 && !app.paused()) {
          released = now;
        }
      }
      if (released != 0 && app.healthyAndDone()) {
        break;
      }
      sleep(POLL_MILLIS);
    }
    GateScenario.awaitServing(app);
    Object phase = app.gate().get("phase");
    return new Release(kind, canary, paused, registered, warm, released,
        phase == null ? null : phase.toString());
  }

  private static boolean registeredAgent(String cache, String podHash) {
    return valkey.hvals(new ControlKeys(cache).agents()).stream()
        .anyMatch(json -> json.contains("\"" + AgentEntry.POD_TEMPLATE_HASH + "\":\"" + podHash + "\""));
  }

  /** Share of the warm job's ids present in the key space, in percent, measured here. */
  private static double coverage(String cache, String schemaHash) {
    return scenario.coverage(scenario.warmJobIds(cache, schemaHash), cache, schemaHash);
  }

  private static void write(List<Release> releases) throws Exception {
    Path out = Path.of(System.getProperty(OUT_PROPERTY, "target/gate-timings.json"));
    Files.createDirectories(out.toAbsolutePath().getParent());
    Map<String, Object> json = new LinkedHashMap<>();
    json.put("pollMillis", POLL_MILLIS);
    List<Map<String, Object>> rows = new ArrayList<>();
    for (Release r : releases) {
      Map<String, Object> row = new LinkedHashMap<>();
      row.put("kind", r.kind());
      row.put("phase", r.phase());
      row.put("pausedToReleasedMs", r.released() - r.paused());
      row.put("registeredAfterPauseMs", r.registered() - r.paused());
      row.put("gateMs", r.gateMillis());
      rows.add(row);
    }
    json.put("releases", rows);
    new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT).writeValue(out.toFile(), json);
  }

  private static void sleep(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted", e);
    }
  }
}
