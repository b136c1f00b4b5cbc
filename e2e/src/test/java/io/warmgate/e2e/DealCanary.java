package io.warmgate.e2e;

import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.Resource;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.warmgate.testing.FlaggerController;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * The deal-service Deployment of {@code examples/deployment/} driven by a Flagger Canary,
 * {@code examples/flagger/} (the policy, and the Canary whose {@code confirm-promotion} webhook
 * asks the operator), with the pod template of {@code examples/local/rollout.yaml}. Flagger's
 * {@code kubernetes} provider serves the app from the {@code <name>-primary} pods, which the test
 * reaches, and runs the new revision in the Deployment's own pods until the promotion.
 */
final class DealCanary extends DealDeployment {

  private final Stack.AppPods primaryPods;

  /**
   * @param warmup replaces the example policy's {@code spec.warmup} entries given here
   * @param analysis replaces the example Canary's {@code spec.analysis} entries given here
   * @param operator the operator's HTTP address, {@code host:port}, that the webhook calls
   */
  DealCanary(KubernetesClient client, String namespace, String name, Stack stack,
      Map<String, Object> warmup, Map<String, Object> analysis, String operator, Path workdir) {
    super(client, namespace, name, stack, "examples/flagger/cachepolicy.yaml", warmup, workdir);
    GenericKubernetesResource canary = load("examples/flagger/canary.yaml");
    canary.getMetadata().setName(name);
    canary.getMetadata().setNamespace(namespace);
    Map<String, Object> spec = map(canary.getAdditionalProperties().get("spec"));
    map(spec.get("targetRef")).put("name", name);
    map(spec.get("analysis")).putAll(analysis);
    String manifest = Serialization.asJson(canary)
        .replace("http://warmgate-operator-metrics.warmgate.svc:8080/", "http://" + operator + "/")
        .replace("\"policy\":\"deals\"", "\"policy\":\"" + name + "\"");
    client.resource(Serialization.unmarshal(manifest, GenericKubernetesResource.class))
        .serverSideApply();
    primaryPods = stack.appPods(client, namespace, name + "-primary", workdir);
  }

  Resource<GenericKubernetesResource> canary() {
    return client.genericKubernetesResources(FlaggerController.CANARIES).inNamespace(namespace)
        .withName(name);
  }

  /** The Canary's {@code status}, empty when it has none. */
  Map<String, Object> canaryStatus() {
    GenericKubernetesResource c = canary().get();
    Object status = c == null ? null : c.getAdditionalProperties().get("status");
    return status == null ? Map.of() : map(status);
  }

  String phase() {
    return (String) canaryStatus().get("phase");
  }

  /** Flagger's Events on the Canary, oldest first. */
  List<Event> canaryEvents() {
    return client.v1().events().inNamespace(namespace).list().getItems().stream()
        .filter(e -> "Canary".equals(e.getInvolvedObject().getKind())
            && name.equals(e.getInvolvedObject().getName()))
        .sorted(Comparator.comparing(e -> Objects.requireNonNullElse(e.getLastTimestamp(), "")))
        .toList();
  }

  /** The apex Service selects the primary pods: they are the ones that serve. */
  @Override
  protected Stack.AppPods servingPods() {
    return primaryPods;
  }

  /**
   * Flagger has finished with the latest revision (initialised, or promoted it) and the primary
   * runs it with every replica available, the Deployment's own pods scaled to zero.
   */
  @Override
  boolean healthyAndDone() {
    String phase = phase();
    Deployment primary = deployment(name + "-primary");
    Deployment target = deployment();
    return ("Initialized".equals(phase) || "Succeeded".equals(phase)) && primary != null
        && primary.getStatus() != null && target != null
        && Objects.equals(primary.getStatus().getAvailableReplicas(), primary.getSpec().getReplicas())
        && Objects.equals(primary.getStatus().getUpdatedReplicas(), primary.getSpec().getReplicas())
        && Integer.valueOf(0).equals(target.getSpec().getReplicas());
  }

  @Override
  public void close() {
    try {
      canary().delete();
      primaryPods.close();
    } finally {
      super.close();
    }
  }
}
