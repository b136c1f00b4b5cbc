package io.warmgate.operator.gate;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.warmgate.operator.gate.GateEvents.GateEvent;
import io.warmgate.operator.model.CachePolicy;
import io.warmgate.operator.model.WarmupSpec;
import java.time.Clock;
import java.time.format.DateTimeFormatter;
import java.time.temporal.ChronoUnit;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What happens to a canary when the CachePolicy holding it is deleted: it stays held (the gate
 * never releases a canary it has not seen warm), and the Rollout gets the annotation
 * {@value #ANNOTATION} and a {@code Warning} Event {@value #REASON} saying that nothing gates it
 * any more and how to promote or abort it by hand. The gate removes the annotation when a policy
 * gates the Rollout again.
 */
public final class DeletedPolicyRule {

  /** Annotation on a Rollout left held by a deleted CachePolicy; its value says what to do. */
  public static final String ANNOTATION = "warmgate.io/gate-deleted";
  /** Reason of the Event recorded on such a Rollout. */
  public static final String REASON = "CachePolicyDeleted";

  private static final Logger log = LoggerFactory.getLogger(DeletedPolicyRule.class);

  private final KubernetesClient client;
  private final Clock clock;

  public DeletedPolicyRule(KubernetesClient client, Clock clock) {
    this.client = Objects.requireNonNull(client, "client");
    this.clock = Objects.requireNonNull(clock, "clock");
  }

  /**
   * Applies the rule to {@code rollout}, the target of the deleted {@code policy}: when the
   * Rollout is held at the policy's gate step, annotates it and records the Event.
   *
   * @param rollout the target Rollout, or null when it does not exist
   * @return whether a held canary was left to a person
   * @throws KubernetesClientException on API errors other than not-found (the caller retries)
   */
  public boolean apply(CachePolicy policy, GenericKubernetesResource rollout) {
    if (rollout == null) {
      return false;
    }
    RolloutView view = RolloutView.of(rollout);
    WarmupSpec warmup = policy.getSpec() == null ? null : policy.getSpec().getWarmup();
    GateStep step = GateStep.resolve(view.steps(), warmup == null ? null : warmup.getGateStep());
    boolean held = view.canaryInProgress() && !view.abort() && step.found()
        && Objects.equals(view.currentStepIndex(), step.index())
        && view.canaryPauseStart().isPresent();
    if (!held) {
      return false;
    }
    String message = instruction(policy, view);
    Map<String, Object> annotations = new HashMap<>();
    annotations.put(ANNOTATION, message);
    try {
      client.genericKubernetesResources(RolloutPatcher.API_VERSION, RolloutPatcher.KIND)
          .inNamespace(view.namespace()).withName(view.name())
          .patch(PatchContext.of(PatchType.JSON_MERGE),
              Serialization.asJson(Map.of("metadata", Map.of("annotations", annotations))));
    } catch (KubernetesClientException e) {
      if (e.getCode() == 404) {
        return false;
      }
      throw e;
    }
    log.warn("Rollout {}: {}", view.id(), message);
    new GateEvents(client, clock).recordOnRollout(view, new GateEvent(true, REASON, message));
    return true;
  }

  /**
   * Removes {@link #ANNOTATION} from {@code rollout} if present: a policy gates it again.
   *
   * @throws KubernetesClientException on API errors other than not-found
   */
  public void clear(GenericKubernetesResource rollout) {
    Map<String, String> annotations = rollout.getMetadata().getAnnotations();
    if (annotations == null || !annotations.containsKey(ANNOTATION)) {
      return;
    }
    Map<String, Object> remove = new HashMap<>();
    remove.put(ANNOTATION, null);
    try {
      client.genericKubernetesResources(RolloutPatcher.API_VERSION, RolloutPatcher.KIND)
          .inNamespace(rollout.getMetadata().getNamespace())
          .withName(rollout.getMetadata().getName())
          .patch(PatchContext.of(PatchType.JSON_MERGE),
              Serialization.asJson(Map.of("metadata", Map.of("annotations", remove))));
    } catch (KubernetesClientException e) {
      if (e.getCode() != 404) {
        throw e;
      }
    }
  }

  private String instruction(CachePolicy policy, RolloutView view) {
    String ns = view.namespace();
    return "CachePolicy " + policy.getMetadata().getNamespace() + "/"
        + policy.getMetadata().getName() + " was deleted at "
        + DateTimeFormatter.ISO_INSTANT.format(clock.instant().truncatedTo(ChronoUnit.SECONDS))
        + " while holding canary " + view.currentPodHash() + " at step "
        + view.currentStepIndex() + "; nothing gates it any more and it stays paused: promote "
        + "it with 'kubectl argo rollouts promote " + view.name() + " -n " + ns
        + "' or abort it with 'kubectl argo rollouts abort " + view.name() + " -n " + ns + "'";
  }
}
