package io.warmgate.operator.gate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.warmgate.operator.WarmgateOperator;
import io.warmgate.operator.model.CachePolicy;
import io.warmgate.operator.model.GatePhase;
import io.warmgate.operator.model.GateStatus;
import io.warmgate.operator.model.TimeoutAction;
import io.warmgate.operator.status.Conditions;
import io.warmgate.operator.testing.ApiServer;
import io.warmgate.operator.testing.Policies;
import io.warmgate.operator.testing.TcpProxy;
import io.warmgate.testing.RedisExtension;
import java.net.InetSocketAddress;
import java.net.URI;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Issue 28 item 2: a held canary is revisited every gate interval whatever failed. The operator
 * (its real reconciler loop, in this JVM) reaches the real API server through a loopback
 * {@link TcpProxy} that the test cuts; the test's own client, the "Argo controller" and the
 * "agents" of {@link RolloutGateIT} keep working. Valkey is a real redis-server the test stops.
 *
 * <p>The operator's client does not retry a request itself ({@code requestRetryBackoffLimit}
 * 0; shipped: fabric8's default of 10 retries), so each pass fails at once and JOSDK's five
 * retries run out within the outage, as they do in a cluster whose API server is away for a few
 * minutes. Against the code before the fix (no reschedule after a failed pass) a canary then
 * stays held after the API comes back.
 */
class ApiOutageIT {

  static final Logger log = LoggerFactory.getLogger(ApiOutageIT.class);
  /** Longer than JOSDK's default retries (5 attempts, about 26 s in all). */
  static final Duration OUTAGE = Duration.ofSeconds(60);
  /** One gate interval (1 s) plus one reconciliation and the Rollout read and patch. */
  static final Duration REACTION = Duration.ofSeconds(3);

  @RegisterExtension
  static final ApiServer api = new ApiServer();

  @RegisterExtension
  static final RedisExtension redis = new RedisExtension();

  static KubernetesClient admin;
  static Policies policies;

  TcpProxy proxy;
  KubernetesClient throughProxy;
  WarmgateOperator operator;
  String ns;
  FakeAgents agents;
  FakeArgo argo;
  GatePolicy policy;

  @BeforeAll
  static void crds() {
    api.applyCrd(ApiServer.cachePolicyCrd());
    api.applyCrd(ApiServer.rolloutCrd());
    admin = api.client();
    policies = new Policies(admin);
    // The operator's client does not retry: start it once the new types are served.
    admin.resources(CachePolicy.class).inAnyNamespace().list();
    admin.genericKubernetesResources("argoproj.io/v1alpha1", "Rollout").inAnyNamespace().list();
  }

  @BeforeEach
  void operatorBehindProxy() {
    Config config = Config.fromKubeconfig(api.kubeconfig());
    URI master = URI.create(config.getMasterUrl());
    proxy = new TcpProxy(new InetSocketAddress(master.getHost(), master.getPort()));
    config.setMasterUrl("https://" + master.getHost() + ":" + proxy.port() + "/");
    config.setRequestRetryBackoffLimit(0);
    throughProxy = new KubernetesClientBuilder().withConfig(config).build();
    operator = Policies.startOperator(throughProxy);
    ns = api.newNamespace("outage");
    agents = new FakeAgents(redis.uri(), ns, ns);
    argo = new FakeArgo(admin, ns, "app");
    policy = new GatePolicy(admin, ns, redis.host() + ":" + redis.port());
  }

  @AfterEach
  void stop() {
    // The operator watches every namespace: one left running would act on the next test's.
    try {
      proxy.restore();
      operator.close();
    } finally {
      throughProxy.close();
      proxy.close();
    }
  }

  @Test
  void aCanaryWarmedDuringAnApiOutageIsReleasedWithinAGateIntervalOfTheApiComingBack()
      throws InterruptedException {
    policies.rollout(ns, "app");
    argo.holdAtGate(Instant.now());
    agents.register("app-stable-1", FakeArgo.STABLE, "aaa111");
    agents.register("app-canary-1", FakeArgo.CANARY, "bbb222");
    List<String> hot = agents.hotSet(100);
    agents.writeValues("bbb222", hot.subList(0, 10));
    policy.create(w -> { });
    policy.awaitPhase(GatePhase.Warming);
    policies.awaitCondition(ns, "deals", Conditions.ROLLOUT_HELD, "True", "Warming");

    proxy.cut();
    Instant cut = Instant.now();
    log.info("API server cut off from the operator for {} s", OUTAGE.toSeconds());
    // Warm early in the outage: the release the gate then tries fails, and JOSDK's own retries
    // (about 26 s) end while the API is still away.
    Thread.sleep(5_000);
    agents.writeValues("bbb222", hot.subList(10, 90));
    Thread.sleep(Duration.between(Instant.now(), cut.plus(OUTAGE)).toMillis());
    assertThat(FakeArgo.paused(argo.rollout())).as("held while the API is away").isTrue();

    proxy.restore();
    Instant back = Instant.now();
    await().atMost(Duration.ofSeconds(90)).pollInterval(Duration.ofMillis(50))
        .until(() -> !FakeArgo.paused(argo.rollout()));
    Duration reaction = Duration.between(back, Instant.now());
    log.info("API back to canary released: {} ms", reaction.toMillis());
    assertThat(reaction).isLessThanOrEqualTo(REACTION);
    GateStatus released = policy.awaitPhase(GatePhase.Promoted);
    assertThat(released.getCoverage()).isEqualTo(90.0);
    policies.awaitCondition(ns, "deals", Conditions.READY, "True", "Reconciled");
  }

  @Test
  void aCanaryHeldWhileTheApiIsAwayPastMaxWaitGetsOnTimeoutWithinAGateIntervalOfItsReturn()
      throws InterruptedException {
    policies.rollout(ns, "app");
    // maxWait (1m) ends at most 20 s into the outage, so that JOSDK's own retries of the failing
    // onTimeout (about 26 s) end while the API is still away.
    argo.holdAtGate(Instant.now().minusSeconds(40));
    agents.register("app-stable-1", FakeArgo.STABLE, "aaa111");
    agents.register("app-canary-1", FakeArgo.CANARY, "bbb222");
    agents.writeValues("bbb222", agents.hotSet(100).subList(0, 10));
    policy.create(w -> {
      w.setMaxWait("1m");
      w.setOnTimeout(TimeoutAction.Promote);
    });
    policy.awaitPhase(GatePhase.Warming);

    proxy.cut();
    Thread.sleep(OUTAGE.toMillis());
    assertThat(FakeArgo.paused(argo.rollout())).as("held while the API is away").isTrue();

    proxy.restore();
    Instant back = Instant.now();
    await().atMost(Duration.ofSeconds(90)).pollInterval(Duration.ofMillis(50))
        .until(() -> !FakeArgo.paused(argo.rollout()));
    Duration reaction = Duration.between(back, Instant.now());
    log.info("API back to timed-out canary released: {} ms", reaction.toMillis());
    assertThat(reaction).isLessThanOrEqualTo(REACTION);
    assertThat(policy.awaitPhase(GatePhase.TimedOut).getMessage())
        .contains("released by onTimeout Promote");
  }

  @Test
  void aCanaryHeldWhileValkeyIsDownPastMaxWaitGetsOnTimeoutWithinAGateInterval() {
    policies.rollout(ns, "app");
    // maxWait (1m) ends 20 s after Valkey stops.
    Instant pausedAt = Instant.now().minusSeconds(40);
    argo.holdAtGate(pausedAt);
    agents.register("app-stable-1", FakeArgo.STABLE, "aaa111");
    agents.register("app-canary-1", FakeArgo.CANARY, "bbb222");
    agents.writeValues("bbb222", agents.hotSet(100).subList(0, 10));
    policy.create(w -> {
      w.setMaxWait("1m");
      w.setOnTimeout(TimeoutAction.Promote);
    });
    policy.awaitPhase(GatePhase.Warming);

    redis.stop();
    try {
      // The pause start is kept to the second; maxWait ends at its next whole second.
      Instant timeout = pausedAt.truncatedTo(java.time.temporal.ChronoUnit.SECONDS)
          .plus(Duration.ofMinutes(1));
      await().atMost(Duration.ofSeconds(90)).pollInterval(Duration.ofMillis(50))
          .until(() -> !FakeArgo.paused(argo.rollout()));
      Duration reaction = Duration.between(timeout, Instant.now());
      log.info("maxWait reached to canary released with Valkey down: {} ms", reaction.toMillis());
      assertThat(reaction).isLessThanOrEqualTo(REACTION);
      assertThat(policy.awaitPhase(GatePhase.TimedOut).getMessage())
          .contains("released by onTimeout Promote");
    } finally {
      redis.start();
    }
  }
}
