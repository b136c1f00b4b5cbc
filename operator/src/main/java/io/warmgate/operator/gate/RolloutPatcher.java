package io.warmgate.operator.gate;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import java.net.HttpURLConnection;
import java.util.Objects;
import java.util.function.BiFunction;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Releases or aborts a held Rollout through patches on its {@code status} subresource. A release
 * removes the {@code CanaryPauseStep} pause condition and nothing else, as
 * {@code kubectl argo rollouts promote} would for that step alone; an abort sets
 * {@code status.abort}, as {@code kubectl argo rollouts abort} does.
 *
 * <p>Never releases early: right before patching it reads the Rollout again from the API server
 * and patches only when that copy is still held at the same gate (same canary and stable hash,
 * gate step, pause start, not aborted) with no other pause reason. The release is a JSON patch
 * whose {@code test} operations require that {@code resourceVersion} and exactly those pause
 * conditions, so a Rollout that changed in between, such as one an analysis paused meanwhile,
 * is left alone and decided again on the next reconciliation.
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
   * Removes the {@code CanaryPauseStep} pause condition of {@code held} if it is still held at
   * {@code gateStep} and paused for no other reason.
   *
   * @return whether the patch was applied; false when the Rollout changed meanwhile
   * @throws KubernetesClientException on API errors other than a conflict or not-found
   */
  public boolean release(RolloutView held, int gateStep) {
    return patch(held, gateStep, true, (fresh, view) -> {
      JsonNode conditions = JSON.valueToTree(fresh.getAdditionalProperties().get("status"))
          .path("pauseConditions");
      ArrayNode ops = JSON.createArrayNode();
      ops.addObject().put("op", "test").put("path", "/metadata/resourceVersion")
          .put("value", view.resourceVersion());
      // The only pause condition is the gate's own (sameHold checked): removing the list is
      // removing it, and the test makes sure no other reason arrived in between.
      ops.addObject().put("op", "test").put("path", "/status/pauseConditions")
          .set("value", conditions);
      ops.addObject().put("op", "remove").put("path", "/status/pauseConditions");
      return new Patch(PatchType.JSON, ops.toString());
    });
  }

  /**
   * Sets {@code status.abort} on {@code held} if it is still held at {@code gateStep}.
   *
   * @return whether the patch was applied; false when the Rollout changed meanwhile
   * @throws KubernetesClientException on API errors other than a conflict or not-found
   */
  public boolean abort(RolloutView held, int gateStep) {
    return patch(held, gateStep, false, (fresh, view) -> {
      ObjectNode body = JSON.createObjectNode();
      body.putObject("metadata").put("resourceVersion", view.resourceVersion());
      body.putObject("status").put("abort", true);
      return new Patch(PatchType.JSON_MERGE, body.toString());
    });
  }

  private record Patch(PatchType type, String body) {}

  private boolean patch(RolloutView held, int gateStep, boolean solePause,
      BiFunction<GenericKubernetesResource, RolloutView, Patch> patchOf) {
    var resource = client.genericKubernetesResources(API_VERSION, KIND)
        .inNamespace(held.namespace()).withName(held.name());
    GenericKubernetesResource fresh = resource.get();
    if (fresh == null) {
      return false;
    }
    RolloutView now = RolloutView.of(fresh);
    if (!sameHold(held, now, gateStep) || (solePause && !now.otherPauseReasons().isEmpty())) {
      log.info("Rollout {} changed since it was seen held at step {}; deciding again",
          held.id(), gateStep);
      return false;
    }
    Patch patch = patchOf.apply(fresh, now);
    try {
      resource.subresource("status").patch(PatchContext.of(patch.type()), patch.body());
      return true;
    } catch (KubernetesClientException e) {
      // 422: a test operation failed, the Rollout changed after it was read.
      if (e.getCode() == HttpURLConnection.HTTP_CONFLICT
          || e.getCode() == HttpURLConnection.HTTP_NOT_FOUND || e.getCode() == 422) {
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
