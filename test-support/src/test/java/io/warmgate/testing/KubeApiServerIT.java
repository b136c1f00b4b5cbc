package io.warmgate.testing;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import java.nio.file.Files;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

class KubeApiServerIT {

  @RegisterExtension
  static final KubeApiServerExtension kube = new KubeApiServerExtension();

  @Test
  void storesArgoRolloutsAfterTheirCrdsAreInstalled() {
    var client = kube.client();
    ArgoRollouts.installCrds(client);
    client.resource(new NamespaceBuilder().withNewMetadata().withName("crd-test").endMetadata().build())
        .create();

    GenericKubernetesResource rollout = client.genericKubernetesResources(ArgoRollouts.ROLLOUTS)
        .inNamespace("crd-test").resource(Rollouts.canary("deal-service")).create();

    assertThat(client.apiextensions().v1().customResourceDefinitions().withName(ArgoRollouts.ROLLOUT_CRD).get())
        .isNotNull();
    assertThat(rollout.getMetadata().getUid()).isNotBlank();
    assertThat(client.genericKubernetesResources(ArgoRollouts.ROLLOUTS).inNamespace("crd-test").withName("deal-service")
        .get().<Integer>get("spec", "replicas")).isEqualTo(2);
  }

  @Test
  void writesAKubeconfigForOtherProcesses() throws Exception {
    assertThat(kube.kubeconfigPath()).exists();
    assertThat(Files.readString(kube.kubeconfigPath())).isEqualTo(kube.kubeconfigYaml())
        .contains(kube.client().getMasterUrl().getHost());
  }

  @Test
  void sharedServerStartsOnceForTheWholeJvm() {
    KubeApiServer shared = KubeApiServer.shared();

    assertThat(KubeApiServer.shared()).isSameAs(shared);
    assertThat(shared.isRunning()).isTrue();
    assertThat(shared.client().namespaces().withName("default").get()).isNotNull();
    assertThat(shared.client().getMasterUrl()).isNotEqualTo(kube.client().getMasterUrl());
  }
}
