package io.warmgate.operator.gate;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import java.net.HttpURLConnection;
import java.util.Objects;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Releases or aborts a held Rollout through merge patches on its {@code status} subresource,
 * the way {@code kubectl argo rollouts promote} releases a pause step
 * ({@code {"status":{"pauseConditions":null}}}) and {@code kubectl argo rollouts abort} aborts
 * ({@code {"status":{"abort":true}}}).
 *
 * <p>Never releases early: right before patching it reads the Rollout again from the API server
 * and patches only when that copy is still held at the same gate (same canary and stable hash,
 * gate step, pause start, not aborted), with its {@code resourceVersion} as a precondition, so a
 * Rollout that changed in between is left alone and decided again on the next reconciliation.
 */
public final class RolloutPatcher {

  static final String API_VERSION = "argoproj.io/v1alpha1";
  static final String KIND = "Rollout";

  private static final Logger log = LoggerFactory.getLogger(RolloutPatcher.class);
  private static final ObjectMapper JSON = new ObjectMapper();

  private final KubernetesClient client;

  public RolloutPatcher(KubernetesClient client) {
    this.client = client;
  }

  /**
   * Clears the pause conditions of {@code held} if it is still held at {@code gateStep}.
   *
   * @return whether the patch was applied; false when the Rollout changed meanwhile
   * @throws KubernetesClientException on API errors other than a conflict or not-found
   */
  public boolean release(RolloutView held, int gateStep) {
    return patch(held, gateStep, status -> status.putNull("pauseConditions"));
  }

  /**
   * Sets {@code status.abort} on {@code held} if it is still held at {@code gateStep}.
   *
   * @return whether the patch was applied; false when the Rollout changed meanwhile
   * @throws KubernetesClientException on API errors other than a conflict or not-found
   */
  public boolean abort(RolloutView held, int gateStep) {
    return patch(held, gateStep, status -> status.put("abort", true));
  }

  private boolean patch(RolloutView held, int gateStep, Consumer<ObjectNode> status) {
    var resource = client.genericKubernetesResources(API_VERSION, KIND)
        .inNamespace(held.namespace()).withName(held.name());
    GenericKubernetesResource fresh = resource.get();
    if (fresh == null) {
      return false;
    }
    RolloutView now = RolloutView.of(fresh);
    if (!sameHold(held, now, gateStep)) {
      log.info("Rollout {} changed since it was seen held at step {}; deciding again",
          held.id(), gateStep);
      return false;
    }
    ObjectNode body = JSON.createObjectNode();
    body.putObject("metadata").put("resourceVersion", now.resourceVersion());
    status.accept(body.putObject("status"));
    try {
      resource.subresource("status").patch(PatchContext.of(PatchType.JSON_MERGE),
          body.toString());
      return true;
    } catch (KubernetesClientException e) {
      if (e.getCode() == HttpURLConnection.HTTP_CONFLICT
          || e.getCode() == HttpURLConnection.HTTP_NOT_FOUND) {
        log.info("Rollout {} changed while being patched ({}); deciding again", held.id(),
            e.getCode());
        return false;
      }
      throw e;
    }
  }

  private static boolean sameHold(RolloutView seen, RolloutView now, int gateStep) {
    return now.canaryInProgress() && !now.abort()
        && Objects.equals(seen.currentPodHash(), now.currentPodHash())
        && Objects.equals(seen.stableRs(), now.stableRs())
        && Objects.equals(now.currentStepIndex(), gateStep)
        && now.canaryPauseStart().isPresent()
        && now.canaryPauseStart().equals(seen.canaryPauseStart());
  }
}
