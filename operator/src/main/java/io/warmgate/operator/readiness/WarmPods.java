package io.warmgate.operator.readiness;

import io.fabric8.kubernetes.api.model.ObjectReferenceBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.warmgate.operator.events.EventRecorder;
import io.warmgate.operator.gate.WarmVerdict;
import io.warmgate.operator.inject.PodInjector;
import io.warmgate.operator.model.CachePolicy;
import java.net.HttpURLConnection;
import java.time.Clock;
import java.time.format.DateTimeFormatter;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Objects;

/**
 * Sets the {@value PodInjector#READINESS_GATE} condition of a policy's pods (those labelled
 * {@value PodInjector#POLICY_LABEL}{@code =<policy>}, which is what the webhook gated) through
 * their {@code status} subresource, as {@link PodWarmth} says. The pods are listed on each call,
 * never watched: the operator keeps no pod cache. Thread-safe.
 */
public final class WarmPods {

  /** The reason of the condition and of the Event when a deleted policy lets its pods in. */
  public static final String POLICY_DELETED = "CachePolicyDeleted";

  private final Clock clock;

  public WarmPods(Clock clock) {
    this.clock = Objects.requireNonNull(clock, "clock");
  }

  /**
   * What one pass did to the policy's pods.
   *
   * @param gated pods that carry the readiness gate, not being deleted
   * @param waiting gated pods whose condition is not True after this pass
   * @param problem why the pods could not be listed or patched, or null
   */
  public record Result(int gated, int waiting, String problem) {}

  /** Writes each of {@code policy}'s pods' condition as {@code verdict} says. */
  public Result apply(KubernetesClient client, CachePolicy policy, WarmVerdict verdict) {
    List<Pod> pods;
    try {
      pods = list(client, policy);
    } catch (KubernetesClientException e) {
      return new Result(0, 0, cannot("list", policy, e));
    }
    int gated = 0;
    int waiting = 0;
    String problem = null;
    for (Pod pod : pods) {
      if (!PodWarmth.gated(pod) || pod.getMetadata().getDeletionTimestamp() != null) {
        continue;
      }
      gated++;
      boolean released = !PodWarmth.waiting(pod);
      var write = PodWarmth.of(pod, verdict);
      if (write.isPresent()) {
        try {
          patch(client, pod, write.get());
          released = "True".equals(write.get().status());
        } catch (KubernetesClientException e) {
          problem = e.getCode() == HttpURLConnection.HTTP_NOT_FOUND ? problem
              : cannot("patch the status of", policy, e);
        }
      }
      if (!released) {
        waiting++;
      }
    }
    return new Result(gated, waiting, problem);
  }

  /**
   * Sets the condition True on every waiting pod of {@code policy}, which is being deleted, and
   * records an Event on {@code workload} (such as {@code Deployment}) saying so.
   *
   * @return how many pods were let in
   */
  public int releaseAll(KubernetesClient client, CachePolicy policy, String workloadKind,
      String workloadName) {
    String namespace = policy.getMetadata().getNamespace();
    String why = "CachePolicy " + namespace + "/" + policy.getMetadata().getName()
        + " was deleted while its pods waited on " + PodInjector.READINESS_GATE
        + "; with no policy left to judge them, they are let in unwarmed";
    int released = 0;
    for (Pod pod : list(client, policy)) {
      if (!PodWarmth.waiting(pod)) {
        continue;
      }
      try {
        patch(client, pod, new PodWarmth.Write("True", POLICY_DELETED, why));
        released++;
      } catch (KubernetesClientException e) {
        if (e.getCode() != HttpURLConnection.HTTP_NOT_FOUND) {
          throw e;
        }
      }
    }
    if (released > 0) {
      new EventRecorder(client, clock).record(new ObjectReferenceBuilder()
          .withApiVersion("apps/v1").withKind(workloadKind).withName(workloadName)
          .withNamespace(namespace).build(), true, POLICY_DELETED,
          why + " (" + released + " pods). Pods created from now on have no readiness gate.");
    }
    return released;
  }

  private static List<Pod> list(KubernetesClient client, CachePolicy policy) {
    return client.pods().inNamespace(policy.getMetadata().getNamespace())
        .withLabel(PodInjector.POLICY_LABEL, policy.getMetadata().getName()).list().getItems();
  }

  /**
   * A strategic merge patch of {@code pods/status}: pod conditions merge by type, so only this one
   * is written. The patch body is the pod's name and this one condition, sent as it is (no GET
   * first: the operator may patch a pod's status without reading the pod).
   */
  private void patch(KubernetesClient client, Pod pod, PodWarmth.Write write) {
    Pod patch = new PodBuilder().withNewMetadata().withName(pod.getMetadata().getName())
        .withNamespace(pod.getMetadata().getNamespace()).endMetadata()
        .withNewStatus().addNewCondition().withType(PodInjector.READINESS_GATE)
        .withStatus(write.status()).withReason(write.reason()).withMessage(write.message())
        .withLastTransitionTime(DateTimeFormatter.ISO_INSTANT.format(
            clock.instant().truncatedTo(ChronoUnit.SECONDS)))
        .endCondition().endStatus().build();
    client.pods().inNamespace(pod.getMetadata().getNamespace()).resource(patch)
        .subresource("status").patch(PatchContext.of(PatchType.STRATEGIC_MERGE));
  }

  private static String cannot(String what, CachePolicy policy, KubernetesClientException e) {
    return "cannot " + what + " the pods of CachePolicy " + policy.getMetadata().getNamespace()
        + "/" + policy.getMetadata().getName() + ": " + e.getMessage() + "; the operator needs "
        + "list on pods and patch on pods/status (operator/k8s/rbac.yaml)";
  }
}
