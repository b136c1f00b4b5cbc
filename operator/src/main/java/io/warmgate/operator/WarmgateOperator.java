package io.warmgate.operator;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.extended.leaderelection.LeaderCallbacks;
import io.javaoperatorsdk.operator.Operator;
import io.javaoperatorsdk.operator.api.config.LeaderElectionConfigurationBuilder;
import io.javaoperatorsdk.operator.processing.Controller;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.binder.jvm.ClassLoaderMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmGcMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmMemoryMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmThreadMetrics;
import io.micrometer.core.instrument.binder.system.ProcessorMetrics;
import io.micrometer.core.instrument.binder.system.UptimeMetrics;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.warmgate.operator.inject.InjectionWebhook;
import io.warmgate.operator.metrics.InformerTargets;
import io.warmgate.operator.metrics.PolicyMetrics;
import io.warmgate.operator.metrics.ReconcileErrorMetrics;
import io.warmgate.operator.model.CachePolicy;
import io.warmgate.operator.decision.FlaggerHandler;
import io.warmgate.operator.decision.GateHandler;
import io.warmgate.operator.decision.Verdicts;
import io.warmgate.operator.gate.NewPodsGate;
import io.warmgate.operator.gate.RolloutGate;
import io.warmgate.operator.plan.PlanHandler;
import io.warmgate.operator.policy.CachePolicyReconciler;
import io.warmgate.operator.valkey.ValkeyClients;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Clock;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The warmgate operator: the CachePolicy controller with leader election, health and metrics
 * endpoints, and a graceful stop.
 */
public final class WarmgateOperator implements AutoCloseable {

  private static final Logger log = LoggerFactory.getLogger(WarmgateOperator.class);

  private final Operator operator;
  private final ValkeyClients valkey;
  private final PrometheusMeterRegistry registry;
  private final HttpEndpoints http;
  /** Null when the webhook is disabled; serves in every replica, leader or not. */
  private final InjectionWebhook webhook;
  private final AtomicBoolean stopping = new AtomicBoolean();
  /** False while this replica waits for the Lease; always true without leader election. */
  private final AtomicBoolean leading = new AtomicBoolean();
  private final JvmGcMetrics gcMetrics = new JvmGcMetrics();
  /** Ends the process once the Lease is lost (a test replaces it). */
  private final Runnable exit;

  private WarmgateOperator(OperatorSettings settings, KubernetesClient client, Runnable exit)
      throws IOException {
    this.exit = exit;
    this.registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    new ClassLoaderMetrics().bindTo(registry);
    new JvmMemoryMetrics().bindTo(registry);
    gcMetrics.bindTo(registry);
    new JvmThreadMetrics().bindTo(registry);
    new ProcessorMetrics().bindTo(registry);
    new UptimeMetrics().bindTo(registry);

    this.valkey = new ValkeyClients(settings.valkeyTimeout());
    Gauge.builder("warmgate.valkey.clients", valkey, ValkeyClients::openClients)
        .description("Valkey endpoints with an open client shared by the policies using them")
        .register(registry);
    boolean rollouts = client.supports("argoproj.io/v1alpha1", "Rollout");
    if (!rollouts) {
      log.warn("Argo Rollouts is not installed; CachePolicies targeting a Rollout will report "
          + "TargetNotFound until it is installed and the operator restarted");
    }
    this.operator = new Operator(o -> {
      o.withKubernetesClient(client)
          .withCloseClientOnStop(false)
          .withReconciliationTerminationTimeout(settings.shutdownTimeout())
          .withMetrics(ReconcileErrorMetrics.overJosdk(registry));
      if (settings.leaderElection()) {
        o.withLeaderElectionConfiguration(LeaderElectionConfigurationBuilder
            .aLeaderElectionConfiguration(settings.leaseName())
            .withLeaseNamespace(settings.leaseNamespace())
            .withIdentity(settings.identity())
            .withLeaseDuration(settings.lease().duration())
            .withRenewDeadline(settings.lease().renewDeadline())
            .withRetryPeriod(settings.lease().retryPeriod())
            .withExitOnStopLeading(false)
            .withLeaderCallbacks(new LeaderCallbacks(
                () -> {
                  leading.set(true);
                  log.info("{} leads through Lease {}/{}", settings.identity(),
                      settings.leaseNamespace(), settings.leaseName());
                },
                this::lostLeadership,
                leader -> log.info("Lease {}/{} is held by {}", settings.leaseNamespace(),
                    settings.leaseName(), leader)))
            .build());
      }
    });
    CachePolicyReconciler reconciler = new CachePolicyReconciler(valkey, Clock.systemUTC(),
        settings.valkeyRecheck(), settings.valkeyAllowed(), rollouts, leading::get);
    Controller<CachePolicy> controller = (Controller<CachePolicy>) operator.register(reconciler,
        config -> {
          // No periodic pass of every policy (JOSDK's default is one each 10 hours): a settled
          // policy waits for a change, and every other pass, failed ones included, schedules
          // its next itself (gate interval while a canary is in progress, recheck interval
          // while not settled).
          config.withReconciliationMaxInterval(null);
          config.withInformerListLimit(CachePolicyReconciler.LIST_PAGE);
          if (!settings.namespaces().isEmpty()) {
            config.settingNamespaces(settings.namespaces());
          }
        });
    PolicyMetrics policyMetrics = new PolicyMetrics(registry,
        () -> policies(controller), new InformerTargets(controller.getEventSourceManager()),
        Clock.systemUTC());
    leading.set(!settings.leaderElection());
    this.webhook = settings.webhook().enabled()
        ? InjectionWebhook.start(settings.webhook(), settings.namespaces(), client, registry)
        : null;
    Verdicts verdicts = new Verdicts(client, valkey,
        new NewPodsGate(Clock.systemUTC(), RolloutGate.DEFAULT_AGENT_GRACE));
    this.http = new HttpEndpoints(settings.httpPort(), () -> !stopping.get(), this::isReady,
        () -> {
          policyMetrics.refresh();
          return registry.scrape();
        }, new PlanHandler(client, valkey, Clock.systemUTC()), new GateHandler(verdicts),
        new FlaggerHandler(verdicts));
  }

  /**
   * Starts the operator with {@code client}; returns once the controller runs (or, with leader
   * election, once this replica campaigns for the Lease).
   */
  public static WarmgateOperator start(OperatorSettings settings, KubernetesClient client) {
    return start(settings, client, () -> System.exit(1));
  }

  /** {@link #start}, running {@code exit} instead of ending the JVM when the Lease is lost. */
  static WarmgateOperator start(OperatorSettings settings, KubernetesClient client,
      Runnable exit) {
    try {
      WarmgateOperator started = new WarmgateOperator(settings, client, exit);
      try {
        started.operator.start();
      } catch (RuntimeException e) {
        started.close();
        throw e;
      }
      log.info("warmgate operator started: namespaces={}, leaderElection={}, http port {}",
          settings.namespaces().isEmpty() ? "all" : settings.namespaces(),
          settings.leaderElection(), started.http.port());
      return started;
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot open the HTTP port " + settings.httpPort()
          + "; set WARMGATE_HTTP_PORT to a free port", e);
    }
  }

  /**
   * Leadership ended. During {@link #close()} that is expected; otherwise another replica may
   * already reconcile, so this replica stops writing at once (the reconciler reads {@link
   * #leading}) and the process exits, for Kubernetes to restart it as a follower. The exit waits
   * for passes in flight ({@code WARMGATE_SHUTDOWN_TIMEOUT}); none of them writes any more.
   */
  private void lostLeadership() {
    leading.set(false);
    if (stopping.get()) {
      return;
    }
    log.error("Lost the leader Lease; writing nothing more and exiting so that only the new "
        + "leader reconciles");
    new Thread(exit, "warmgate-lost-leadership").start();
  }

  /**
   * Whether this replica serves: the leader once its controller runs with healthy informers, a
   * follower as soon as it started (it serves the webhook while it waits for the Lease, and a
   * Deployment of several replicas must see them available to roll out).
   */
  public boolean isReady() {
    if (stopping.get() || !operator.getRuntimeInfo().isStarted()) {
      return false;
    }
    return !leading.get() || operator.getRuntimeInfo().allEventSourcesAreHealthy();
  }

  /** The port serving /healthz, /readyz and /metrics. */
  public int httpPort() {
    return http.port();
  }

  /**
   * The HTTPS port of the pod-injection webhook.
   *
   * @throws IllegalStateException if the webhook is disabled (WARMGATE_WEBHOOK_ENABLED)
   */
  public int webhookPort() {
    if (webhook == null) {
      throw new IllegalStateException("the webhook is disabled; set WARMGATE_WEBHOOK_ENABLED=true");
    }
    return webhook.port();
  }

  /** Stops reconciling (waiting for running reconciliations), closes Valkey clients and HTTP. */
  @Override
  public void close() {
    if (!stopping.compareAndSet(false, true)) {
      return;
    }
    log.info("warmgate operator stopping");
    try {
      operator.stop();
    } finally {
      if (webhook != null) {
        webhook.close();
      }
      valkey.close();
      gcMetrics.close();
      http.close();
      registry.close();
    }
    log.info("warmgate operator stopped");
  }

  /** The policies in the controller's informer cache; none before it started. */
  private static Stream<CachePolicy> policies(Controller<CachePolicy> controller) {
    try {
      return controller.getEventSourceManager().getControllerEventSource().list().toList().stream();
    } catch (RuntimeException e) {
      return Stream.empty();
    }
  }

  public static void main(String[] args) throws InterruptedException {
    OperatorSettings settings = OperatorSettings.fromEnvironment(System.getenv());
    KubernetesClient client = new KubernetesClientBuilder().build();
    WarmgateOperator running = start(settings, client);
    CountDownLatch stopped = new CountDownLatch(1);
    Runtime.getRuntime().addShutdownHook(new Thread(() -> {
      running.close();
      client.close();
      stopped.countDown();
    }, "warmgate-shutdown"));
    stopped.await();
  }

}
