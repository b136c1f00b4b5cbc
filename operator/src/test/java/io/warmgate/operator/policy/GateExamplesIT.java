package io.warmgate.operator.policy;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.warmgate.operator.gate.GateStep;
import io.warmgate.operator.gate.GateStyle;
import io.warmgate.operator.gate.RolloutView;
import io.warmgate.operator.testing.ApiServer;
import io.warmgate.testing.ArgoRollouts;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The analysis example applies to a real API server with Argo Rollouts' own CRDs, and every field
 * it sets survives: the CRDs prune what they do not know, so a misspelt or too-new field (such as
 * {@code consecutiveSuccessLimit} on an Argo Rollouts older than 1.8) would vanish here.
 */
class GateExamplesIT {

  @RegisterExtension
  static final ApiServer api = new ApiServer();

  static List<HasMetadata> load(String file) throws IOException {
    try (InputStream in = Files.newInputStream(GateExamplesTest.file(file))) {
      return api.client().load(in).items();
    }
  }

  /** The style the operator reads from {@code rollout} as the API server stored it. */
  static GateStyle style(GenericKubernetesResource rollout) {
    return GateStyle.of(rollout, GateStep.resolve(RolloutView.of(rollout).steps(), null), false);
  }

  @Test
  void analysisExampleAppliesWithEveryFieldKept() throws IOException {
    KubernetesClient client = api.client();
    api.applyCrd(ApiServer.cachePolicyCrd());
    ArgoRollouts.installCrds(client);
    client.resource(new NamespaceBuilder().withNewMetadata().withName("shop").endMetadata()
        .build()).serverSideApply();

    for (String file : List.of("analysis/cachepolicy.yaml", "analysis/analysistemplate.yaml",
        "analysis/rollout-canary.yaml")) {
      for (HasMetadata item : load(file)) {
        client.resource(item).create();
      }
    }
    GenericKubernetesResource template = client.genericKubernetesResources(
        ArgoRollouts.API_VERSION, "AnalysisTemplate").inNamespace("shop")
        .withName("warmgate-warm").get();
    @SuppressWarnings("unchecked")
    Map<String, Object> metric = (Map<String, Object>) ((List<?>) ((Map<?, ?>) template
        .getAdditionalProperties().get("spec")).get("metrics")).get(0);
    assertThat(metric).containsKeys("consecutiveSuccessLimit", "failureLimit", "count",
        "interval", "consecutiveErrorLimit", "successCondition", "provider");
    assertThat(((Map<?, ?>) metric.get("provider")).get("web")).isNotNull();

    GenericKubernetesResource canary = client.genericKubernetesResources(
        ArgoRollouts.API_VERSION, "Rollout").inNamespace("shop").withName("deal-service").get();
    assertThat(style(canary)).isEqualTo(GateStyle.ANALYSIS);
    client.resource(canary).delete();
    client.genericKubernetesResources(ArgoRollouts.API_VERSION, "Rollout").inNamespace("shop")
        .withName("deal-service").waitUntilCondition(r -> r == null,
            30, java.util.concurrent.TimeUnit.SECONDS);

    for (HasMetadata item : load("analysis/rollout-bluegreen.yaml")) {
      client.resource(item).create();
    }
    GenericKubernetesResource blueGreen = client.genericKubernetesResources(
        ArgoRollouts.API_VERSION, "Rollout").inNamespace("shop").withName("deal-service").get();
    assertThat(style(blueGreen)).isEqualTo(GateStyle.ANALYSIS);
    assertThat(blueGreen.getAdditionalProperties().get("spec").toString())
        .contains("args=[{name=policy, value=deals}]");
  }

  @Test
  void deploymentExampleAppliesWithEveryFieldKept() throws IOException {
    KubernetesClient client = api.client();
    api.applyCrd(ApiServer.cachePolicyCrd());
    client.resource(new NamespaceBuilder().withNewMetadata().withName("shop").endMetadata()
        .build()).serverSideApply();
    List<HasMetadata> applied = new java.util.ArrayList<>();
    for (String file : List.of("deployment/cachepolicy.yaml", "deployment/deployment.yaml")) {
      for (HasMetadata item : load(file)) {
        applied.add(client.resource(item).forceConflicts().serverSideApply());
      }
    }
    io.warmgate.operator.model.CachePolicy policy = client.resources(
        io.warmgate.operator.model.CachePolicy.class).inNamespace("shop").withName("deals").get();
    assertThat(policy.getSpec().getWarmup().getOnTimeout())
        .isEqualTo(io.warmgate.operator.model.TimeoutAction.Promote);
    var deployment = client.apps().deployments().inNamespace("shop").withName("deal-service")
        .get();
    assertThat(deployment.getSpec().getStrategy().getRollingUpdate().getMaxSurge().getIntVal())
        .isEqualTo(1);
    assertThat(deployment.getSpec().getTemplate().getMetadata().getLabels())
        .containsEntry("warmgate.io/cache-policy", "deals");
    // The analysis example creates a policy of the same name in the same namespace.
    applied.forEach(item -> client.resource(item).withTimeout(30,
        java.util.concurrent.TimeUnit.SECONDS).delete());
  }

  @Test
  void statefulSetExampleAppliesWithEveryFieldKept() throws IOException {
    KubernetesClient client = api.client();
    api.applyCrd(ApiServer.cachePolicyCrd());
    client.resource(new NamespaceBuilder().withNewMetadata().withName("shop").endMetadata()
        .build()).serverSideApply();
    List<HasMetadata> applied = new java.util.ArrayList<>();
    for (String file : List.of("statefulset/cachepolicy.yaml", "statefulset/service.yaml",
        "statefulset/statefulset.yaml")) {
      for (HasMetadata item : load(file)) {
        applied.add(client.resource(item).forceConflicts().serverSideApply());
      }
    }
    io.warmgate.operator.model.CachePolicy policy = client.resources(
        io.warmgate.operator.model.CachePolicy.class).inNamespace("shop").withName("deal-store")
        .get();
    assertThat(policy.getSpec().getTargetRef().getKind())
        .isEqualTo(io.warmgate.operator.model.TargetKind.StatefulSet);
    assertThat(policy.getSpec().getWarmup().getOnTimeout())
        .isEqualTo(io.warmgate.operator.model.TimeoutAction.Promote);
    var statefulSet = client.apps().statefulSets().inNamespace("shop").withName("deal-store")
        .get();
    assertThat(statefulSet.getSpec().getPodManagementPolicy()).isEqualTo("OrderedReady");
    assertThat(statefulSet.getSpec().getTemplate().getMetadata().getLabels())
        .containsEntry("warmgate.io/cache-policy", "deal-store");
    applied.forEach(item -> client.resource(item).withTimeout(30,
        java.util.concurrent.TimeUnit.SECONDS).delete());
  }
}
