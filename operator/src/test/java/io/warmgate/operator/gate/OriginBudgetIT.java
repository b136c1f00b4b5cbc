package io.warmgate.operator.gate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.warmgate.operator.model.Condition;
import io.warmgate.operator.model.ForecastStatus;
import io.warmgate.operator.model.GatePhase;
import io.warmgate.operator.model.HotIdStatus;
import io.warmgate.operator.status.Conditions;
import io.warmgate.operator.testing.ApiServer;
import io.warmgate.operator.testing.Policies;
import io.warmgate.operator.testing.RunningOperator;
import io.warmgate.testing.RedisExtension;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The origin forecast in status and {@code warmup.originBudget} against a real API server and a
 * real Redis; the test plays Argo (the Rollout's status) and the agents (registry, hot set with
 * its meta, stats buckets, value keys).
 *
 * <p>The fleet: stable pods serve 300 lookups/s (90 % hits, 40 origin reads/s), the canary 100
 * (no hits yet, so its key space holds none of the ids outside the hot set; 10 origin reads/s);
 * the hot set is 100 ids at 2 lookups/s each. A release moves 75 % of the traffic: a fully cold
 * canary adds 0.75 × 100 × (1 − e^−2) = 64.85 reads/s for the hot set and as much for the ids
 * outside it (the 200 other lookups/s continue the hot set's flat rates: 100 ids at 2/s), about
 * 129.7 on top of the 50 now, of which the stable key space's 40 end with the release.
 */
class OriginBudgetIT {

  static final double HOT_PEAK_PER_ID = 0.75 * (1 - Math.exp(-2));
  static final double TAIL = 100 * HOT_PEAK_PER_ID;

  @RegisterExtension
  @Order(1)
  static final ApiServer api = new ApiServer();

  @RegisterExtension
  @Order(2)
  static final RunningOperator operator = RunningOperator.withRollouts(api);

  @RegisterExtension
  static final RedisExtension redis = new RedisExtension();

  static Policies policies;
  static KubernetesClient client;

  String ns;
  FakeAgents agents;
  FakeArgo argo;
  GatePolicy policy;
  List<String> hot;

  @BeforeAll
  static void clients() {
    client = api.client();
    policies = operator.policies();
  }

  @BeforeEach
  void fleet() {
    ns = api.newNamespace("budget");
    agents = new FakeAgents(redis.uri(), ns, ns);
    argo = new FakeArgo(client, ns, "app");
    policy = new GatePolicy(client, ns, redis.host() + ":" + redis.port());
    policies.rollout(ns, "app");
    argo.holdAtGate(Instant.now());
    for (int i = 1; i <= 3; i++) {
      agents.register("app-stable-" + i, FakeArgo.STABLE, "aaa111");
    }
    agents.register("app-canary-1", FakeArgo.CANARY, "bbb222");
    double[] rates = new double[100];
    Arrays.fill(rates, 2.0);
    hot = agents.hotSetAt(rates);
    agents.traffic("aaa111", 300, 0.9, 40);
    agents.traffic("bbb222", 100, 0.0, 10);
  }

  @Test
  void aHeldCanarysForecastIsInStatusWithTheIdsThatDominateIt() {
    policy.create(w -> { });

    ForecastStatus cold = awaitForecast(peak -> peak > 120);
    assertThat(cold.getOriginRate()).isEqualTo(50.0);
    assertThat(cold.getLeavingRate()).isEqualTo(40.0);
    assertThat(cold.getReleasedShare()).isEqualTo(75.0);
    assertThat(cold.getTail()).isCloseTo(TAIL, within(1.0));
    assertThat(cold.getPeak()).isCloseTo(100 * HOT_PEAK_PER_ID + TAIL, within(1.0));
    // Every cold id is looked up twice a second: warm within two seconds, tail included.
    assertThat(cold.getWarmAfterSeconds()).isLessThanOrEqualTo(2);
    assertThat(cold.getBudget()).isNull();
    assertThat(cold.getDominantIds()).hasSize(5)
        .allSatisfy(id -> assertThat(id.getReadsPerSecond()).isCloseTo(2.0, within(0.01)))
        .extracting(HotIdStatus::getId).allSatisfy(id -> assertThat(hot).contains(id));
    assertThat(cold.getMessage()).containsPattern("^releasing now adds ~1[23][0-9] reads/s at its "
        + "peak");

    agents.writeValues("bbb222", hot.subList(0, 50));
    ForecastStatus half = awaitForecast(peak -> peak < 110);
    assertThat(half.getPeak()).isCloseTo(50 * HOT_PEAK_PER_ID + TAIL, within(1.0));
    assertThat(half.getDominantIds()).extracting(HotIdStatus::getId)
        .allSatisfy(id -> assertThat(hot.subList(50, 100)).contains(id));
  }

  @Test
  void anOriginBudgetHoldsUntilTheForecastFitsThenReleases() {
    policy.create(w -> {
      w.setMinCoverage(0);
      w.setOriginBudget(100);
    });

    policies.awaitCondition(ns, "deals", Conditions.ROLLOUT_HELD, "True", "Warming");
    await().atMost(Policies.WITHIN).untilAsserted(() -> assertThat(policy.gate().getMessage())
        .containsPattern("origin 50 now − 40 ending with the replaced pods \\+ 1[23][0-9] peak = "
            + "1[34][0-9] of 100 reads/s budget"));
    assertThat(policy.gate().getForecast().getBudget()).isEqualTo(100);
    assertStillHeldFor(Duration.ofSeconds(2));

    // Warm: only the ids outside the hot set remain, 50 − 40 + 65 = 75 fits under 100.
    agents.writeValues("bbb222", hot);
    await().atMost(Policies.WITHIN).pollInterval(Duration.ofMillis(50))
        .until(() -> argo.status().get("pauseConditions") == null);
    policy.awaitPhase(GatePhase.Promoted);
    Condition warmed = policies.awaitCondition(ns, "deals", Conditions.WARMED, "True",
        "WithinOriginBudget");
    // About 65: the rates read from the scores lose one sample each.
    assertThat(warmed.getMessage()).containsPattern(
        "origin 50 now − 40 ending with the replaced pods \\+ 6[456] peak = 7[456] of 100 "
            + "reads/s budget");
  }

  @Test
  void aBudgetBelowTheSteadyOriginRateCannotWarmAndIsNotReady() {
    policy.create(w -> {
      w.setMinCoverage(0);
      w.setOriginBudget(30);
    });

    Condition ready = policies.awaitCondition(ns, "deals", Conditions.READY, "False",
        "CannotWarm");
    assertThat(ready.getMessage()).contains("warmup.originBudget 30 reads/s is below the steady "
        + "origin rate 50 reads/s");
    policies.awaitCondition(ns, "deals", Conditions.ROLLOUT_HELD, "True", "CannotWarm");
    policies.awaitCondition(ns, "deals", Conditions.WARMED, "False", "CannotWarm");
    assertStillHeldFor(Duration.ofSeconds(2));
  }

  @Test
  void aBudgetedPreloadGetsTheBudgetLeftAsItsCeilingAndItsRateIsShown() {
    policy.create(w -> {
      w.setMode(io.warmgate.operator.model.WarmupMode.Preload);
      w.setOriginBudget(300);
      w.setPreloadRate(1000);
    });

    // With a warm job, the canary's own origin reads are the preload's, not steady: 300 − 40,
    // the stable key space's, leaves the preload at most 260 ids/s.
    await().atMost(Policies.WITHIN).untilAsserted(() -> assertThat(agents.warmJob("bbb222"))
        .containsEntry("ceiling", "260.0").containsEntry("rate", "1000"));
    agents.updateWarmJob("bbb222", java.util.Map.of("state", "Running", "rateInUse", "120.5"));
    await().atMost(Policies.WITHIN).untilAsserted(() ->
        assertThat(policy.gate().getForecast().getPreloadRate()).isEqualTo(120.5));

    // The steady rate rises to 270: 30 ids/s are left.
    agents.traffic("aaa111", 300, 0.9, 270);
    await().atMost(Policies.WITHIN).untilAsserted(() -> assertThat(agents.warmJob("bbb222"))
        .containsEntry("ceiling", "30.0"));
  }

  @Test
  void anOriginBudgetBelowOneIsRefusedByTheApiServer() {
    assertThatThrownBy(() -> policy.create(w -> w.setOriginBudget(0)))
        .isInstanceOfSatisfying(KubernetesClientException.class, e ->
            assertThat(e.getMessage()).contains("spec.warmup.originBudget")
                .contains("should be greater than or equal to 1"));
  }

  @Test
  void theReleasePlanOfTheFleetNamesTheHotSetThatFitsTheBudget() throws Exception {
    policy.create(w -> { });
    // Every live key space is replaced: 400 lookups/s, 50 reads/s of which all end. The tail
    // continues the flat hot set (100 more ids at about 2/s): (a) reads about 200 × 0.8647 in
    // its first second; under 100 reads/s, (100 − n + 100) × 0.75 × 0.8647 ≤ 100 first holds at
    // n = 46 with rates of exactly 2 (each rate read from a score loses one sample).
    policies.awaitCondition(ns, "deals", Conditions.L2_REACHABLE, "True", "Connected");
    HttpResponse<String> plan = plan("/plan/" + ns + "/deals?budget=100");
    assertThat(plan.statusCode()).as(plan.body()).isEqualTo(200);
    // The operator README's example is this answer.
    Files.writeString(Path.of("target", "release-plan.txt"), plan.body());
    assertThat(plan.body())
        .containsPattern("\\(a\\) every pod at once, no gate +1(6[5-9]|7[0-3]) ")
        .contains("(b) one pod at a time (the first of 4 steps)")
        .containsPattern("\\(f\\) warmgate Preload under originBudget 100: (4[0-9]|5[0-2]) ids ")
        .containsPattern("warmup.hotSetSize: +(4[0-9]|5[0-2])\n")
        .contains("Budget: 100 origin reads/s (--budget)");
    assertThat(plan("/plan/" + ns + "/deals").body()).contains("Budget: none given")
        .doesNotContain("(f) warmgate");

    // The kubectl plugin asks the same, here straight at the operator's port.
    Process plugin = new ProcessBuilder("bash", PLUGIN.toString(), "plan", "deals", "-n", ns,
        "--budget=100", "--operator-url", "http://127.0.0.1:" + operator.get().httpPort())
        .redirectErrorStream(true).start();
    String printed = new String(plugin.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(plugin.waitFor()).as(printed).isZero();
    assertThat(printed).containsPattern("warmup.hotSetSize: +(4[0-9]|5[0-2])\\n");
  }

  /** The kubectl plugin, from the module's directory (where Maven runs the tests). */
  static final Path PLUGIN = Path.of("bin", "kubectl-warmgate").toAbsolutePath();

  @Test
  void thePlanRefusesABadBudgetAndAnUnknownPolicyNamingThem() throws Exception {
    assertThat(plan("/plan/" + ns + "/deals?budget=lots")).satisfies(r -> {
      assertThat(r.statusCode()).isEqualTo(400);
      assertThat(r.body()).contains("budget 'lots' is not a whole number");
    });
    assertThat(plan("/plan/" + ns + "/nothing")).satisfies(r -> {
      assertThat(r.statusCode()).isEqualTo(404);
      assertThat(r.body()).contains("CachePolicy " + ns + "/nothing not found");
    });
    assertThat(plan("/plan/Bad_Name").statusCode()).isEqualTo(400);
  }

  static HttpResponse<String> plan(String path) throws Exception {
    return HttpClient.newHttpClient().send(HttpRequest.newBuilder(
        URI.create("http://127.0.0.1:" + operator.get().httpPort() + path)).build(),
        HttpResponse.BodyHandlers.ofString());
  }

  ForecastStatus awaitForecast(java.util.function.DoublePredicate peak) {
    await().atMost(Policies.WITHIN).untilAsserted(() -> {
      ForecastStatus f = policy.gate().getForecast();
      assertThat(f).as("status.gate.forecast").isNotNull();
      assertThat(f.getPeak()).as("peak (%s)", f.getMessage()).isNotNull()
          .matches(p -> peak.test(p), "expected peak");
    });
    return policy.gate().getForecast();
  }

  void assertStillHeldFor(Duration duration) {
    await().during(duration).atMost(duration.plusSeconds(2)).untilAsserted(() ->
        assertThat(argo.status().get("pauseConditions")).as("pauseConditions").isNotNull());
  }
}
