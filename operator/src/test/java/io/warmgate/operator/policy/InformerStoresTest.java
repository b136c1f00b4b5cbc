package io.warmgate.operator.policy;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.GenericKubernetesResourceBuilder;
import io.fabric8.kubernetes.api.model.ManagedFieldsEntry;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.DeploymentBuilder;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class InformerStoresTest {

  @Test
  void aDeploymentIsKeptAsItsIdentityVersionAndReadyReplicas() {
    IdentityStore<Deployment> store = IdentityStore.deployments();
    Deployment full = deployment("shop", "app", "4711", 3L, 2);
    String key = store.getKey(full);
    assertThat(key).isEqualTo("shop/app");

    assertThat(store.put(key, full)).as("nothing there before").isNull();
    Deployment kept = store.get(key);
    assertThat(kept.getMetadata().getNamespace()).isEqualTo("shop");
    assertThat(kept.getMetadata().getName()).isEqualTo("app");
    assertThat(kept.getMetadata().getResourceVersion()).isEqualTo("4711");
    assertThat(kept.getMetadata().getGeneration()).isEqualTo(3L);
    assertThat(kept.getStatus().getReadyReplicas()).isEqualTo(2);
    assertThat(kept.getSpec()).as("the pod template is not kept").isNull();
    assertThat(kept.getMetadata().getAnnotations()).isEmpty();

    Deployment previous = store.put(key, deployment("shop", "app", "4712", 4L, 3));
    assertThat(previous.getMetadata().getResourceVersion()).as("put returns the previous").isEqualTo("4711");
    assertThat(store.size()).isEqualTo(1);
    assertThat(store.keySet()).containsExactly("shop/app");
    assertThat(store.values().map(d -> d.getStatus().getReadyReplicas())).containsExactly(3);
    assertThat(store.remove(key).getMetadata().getResourceVersion()).isEqualTo("4712");
    assertThat(store.get(key)).isNull();
    assertThat(store.isFullState()).as("the informer's listeners get a listed workload's add "
        + "from the store once the list is done, not the whole workload queued").isTrue();
  }

  @Test
  void anOpaqueResourceVersionIsKeptAsItCame() {
    IdentityStore<Deployment> store = IdentityStore.deployments();
    for (String version : List.of("abc-1", "007", "99999999999999999999", "")) {
      Deployment full = deployment("ns", "d", version, null, null);
      store.put(store.getKey(full), full);
      assertThat(store.get("ns/d").getMetadata().getResourceVersion()).isEqualTo(version);
      assertThat(store.get("ns/d").getMetadata().getGeneration()).isNull();
      assertThat(store.get("ns/d").getStatus().getReadyReplicas()).isZero();
    }
  }

  @Test
  void aRolloutLosesOnlyItsManagedFieldsAndLastAppliedCopy() {
    GenericKubernetesResource rollout = new GenericKubernetesResourceBuilder()
        .withApiVersion("argoproj.io/v1alpha1").withKind("Rollout")
        .withNewMetadata().withName("app").withNamespace("shop")
        .addToAnnotations(TrimmedRollouts.LAST_APPLIED, "{\"big\":true}")
        .addToAnnotations("warmgate.io/policy-deleted", "deals")
        .withManagedFields(new ManagedFieldsEntry()).endMetadata()
        .addToAdditionalProperties("spec", Map.of("replicas", 3)).build();

    GenericKubernetesResource trimmed = TrimmedRollouts.trim(rollout);

    assertThat(trimmed.getMetadata().getManagedFields()).isNullOrEmpty();
    assertThat(trimmed.getMetadata().getAnnotations())
        .containsOnlyKeys("warmgate.io/policy-deleted");
    assertThat(trimmed.getAdditionalProperties()).containsEntry("spec", Map.of("replicas", 3));
  }

  private static Deployment deployment(String namespace, String name, String version,
      Long generation, Integer ready) {
    return new DeploymentBuilder().withNewMetadata().withNamespace(namespace).withName(name)
        .withResourceVersion(version).withGeneration(generation)
        .addToAnnotations(TrimmedRollouts.LAST_APPLIED, "{}").endMetadata()
        .withNewSpec().withReplicas(3).withNewTemplate().withNewSpec().addNewContainer()
        .withName("app").withImage("app:1").endContainer().endSpec().endTemplate().endSpec()
        .withNewStatus().withReadyReplicas(ready).endStatus().build();
  }
}
