package io.warmgate.bench.operator;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.warmgate.testing.OperatorProcess;
import java.time.Duration;
import java.util.List;

/**
 * The operator killed (SIGKILL, as the kubelet does past the grace period or on OOM) and started
 * again with every policy in place, while pods are admitted through its webhook: how long until it
 * is ready, serves the webhook and has reconciled every policy once, and what the admissions met.
 *
 * @param readyz from the new process's start to {@code /readyz} answering 200
 * @param webhookServing from the start to the first admission the webhook configured
 * @param allReconciled from the start until JOSDK had finished as many reconciliations as there
 *     are policies ({@code operator_sdk_reconciliations_success_total}: a count, so a policy
 *     reconciled twice stands in for one not yet reconciled; none was changed meanwhile)
 * @param process the new process once every policy was reconciled
 * @param admissions admissions sent from the kill until a few seconds after both of the above
 * @param injected of those, configured by the webhook
 * @param missedAfterServing admissions sent after {@code webhookServing} that were not configured
 * @param timedOut admissions that took the webhook's whole timeout or longer
 * @param slowestAdmissionMs the longest admission
 * @param deploymentLists LIST requests for Deployments the API server served from the kill until
 *     every policy was reconciled: the informer's pages
 */
record Restart(Duration readyz, Duration webhookServing, Duration allReconciled,
    ProcessSample process, int admissions, int injected, int missedAfterServing, int timedOut,
    double slowestAdmissionMs, long deploymentLists) {

  /** The slower of the two that make the operator useful again: webhook and reconciliation. */
  Duration toReady() {
    Duration later = webhookServing.compareTo(allReconciled) > 0 ? webhookServing : allReconciled;
    return later.compareTo(readyz) > 0 ? later : readyz;
  }

  static Restart of(OperatorProcess operator, KubernetesClient client, String namespace,
      String policy, int policies, Duration within) {
    ApiServerRequests api = new ApiServerRequests(client);
    long listsBefore = api.served("LIST", "deployments");
    AdmissionProbe probe = new AdmissionProbe(client, namespace, policy);
    try (probe) {
      Sleep.millis(1_000);
      long killed = System.nanoTime();
      operator.kill();
      long start = System.nanoTime();
      operator.start();
      Duration readyz = Duration.ofNanos(System.nanoTime() - start);
      Duration serving = null;
      Duration reconciled = null;
      long deadline = start + within.toNanos();
      while (serving == null || reconciled == null) {
        if (System.nanoTime() > deadline) {
          throw new IllegalStateException("after a restart with " + policies + " policies, within "
              + within + ": webhook serving " + serving + ", every policy reconciled "
              + reconciled + "; see the operator's log");
        }
        if (serving == null) {
          serving = probe.since(start).stream().filter(AdmissionProbe.Admission::injected)
              .findFirst().map(a -> Duration.ofNanos(a.sentNanos() + a.tookNanos() - start))
              .orElse(null);
        }
        if (reconciled == null && PrometheusText.sumOrZero(operator.get("metrics"),
            "operator_sdk_reconciliations_success_total", "") >= policies) {
          reconciled = Duration.ofNanos(System.nanoTime() - start);
        }
        Sleep.millis(100);
      }
      long deploymentLists = api.served("LIST", "deployments") - listsBefore;
      Sleep.millis(3_000);
      ProcessSample process = ProcessSample.of(operator);
      probe.close(); // stops sending; closing again at the end of the block does nothing
      List<AdmissionProbe.Admission> sent = probe.since(killed);
      long servedAt = start + serving.toNanos();
      long timeout = FleetFootprintBench.CHART.webhookTimeout().toNanos();
      return new Restart(readyz, serving, reconciled, process, sent.size(),
          (int) sent.stream().filter(AdmissionProbe.Admission::injected).count(),
          (int) sent.stream().filter(a -> a.sentNanos() >= servedAt && !a.injected()).count(),
          (int) sent.stream().filter(a -> a.tookNanos() >= timeout).count(),
          sent.stream().mapToLong(AdmissionProbe.Admission::tookNanos).max().orElse(0) / 1e6,
          deploymentLists);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while the admission probe stopped", e);
    }
  }
}
