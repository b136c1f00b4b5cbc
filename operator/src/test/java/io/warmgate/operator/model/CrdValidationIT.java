package io.warmgate.operator.model;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.MixedOperation;
import io.fabric8.kubernetes.client.dsl.Resource;
import io.fabric8.kubernetes.api.model.GenericKubernetesResourceList;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.warmgate.operator.testing.ApiServer;
import io.warmgate.operator.testing.RejectCorpus;
import java.io.IOException;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** The checked-in CRD, served by a real API server, admits the examples and refuses bad input. */
class CrdValidationIT {

  @RegisterExtension
  static final ApiServer api = new ApiServer();

  static String namespace;

  @BeforeAll
  static void installCrd() {
    api.applyCrd(ApiServer.cachePolicyCrd());
    namespace = api.newNamespace("validation");
  }

  @Test
  void minimalExampleIsAcceptedAndDefaulted() throws IOException {
    GenericKubernetesResource created = policies().resource(load(example("minimal"))).create();

    CachePolicy policy = Serialization.unmarshal(Serialization.asJson(created), CachePolicy.class);
    CachePolicySpec spec = policy.getSpec();
    assertThat(spec.getL1Ttl()).isEqualTo("60s");
    assertThat(spec.getL1MaxSize()).isEqualTo(100000L);
    assertThat(spec.getL2Ttl()).isEqualTo("4m");
    assertThat(spec.getNegativeTtl()).as("unset: not-found answers live as long as values").isNull();
    assertThat(spec.getRefreshAhead()).isEqualTo("60s");
    assertThat(spec.getLockTtl()).isEqualTo("5s");
    assertThat(spec.getL2Timeout()).isEqualTo("20ms");
    assertThat(spec.getMaxStaleness()).isEqualTo("5m");
    assertThat(spec.getStaleIfError()).isEqualTo("5m");
    assertThat(spec.getValkey().getTls()).isFalse();
    assertThat(spec.getWarmup().getMode()).isEqualTo(WarmupMode.Organic);
    assertThat(spec.getWarmup().getMinCoverage()).isEqualTo(80);
    assertThat(spec.getWarmup().getOnTimeout()).isEqualTo(TimeoutAction.Hold);
    assertThat(spec.getWarmup().getSkipWhenSchemaUnchanged()).isTrue();
    assertThat(spec.getInjection().getEnabled()).isTrue();
  }

  @Test
  void fullExampleIsAcceptedAsWritten() throws IOException {
    GenericKubernetesResource full = load(example("full"));

    GenericKubernetesResource created = policies().resource(full).create();

    assertThat(created.getAdditionalProperties().get("spec"))
        .isEqualTo(full.getAdditionalProperties().get("spec"));
  }

  @Test
  void secretExampleIsAValidSecret() throws IOException {
    var secret = api.client().secrets().load(Files.newInputStream(
        ApiServer.repoDir().resolve("examples/valkey-secret.yaml"))).item();

    assertThat(api.client().secrets().inNamespace(namespace).resource(secret).create()
        .getMetadata().getName()).isEqualTo("valkey-auth");
  }

  @Test
  void everyFieldIsDescribedForKubectlExplain() {
    CustomResourceDefinition crd = api.client().apiextensions().v1().customResourceDefinitions()
        .withName("cachepolicies.warmgate.io").get();
    var schema = crd.getSpec().getVersions().get(0).getSchema().getOpenAPIV3Schema();

    List<String> undescribed = new java.util.ArrayList<>();
    collectUndescribed("", schema.getProperties(), undescribed);
    assertThat(undescribed).isEmpty();
    assertThat(crd.getSpec().getNames().getShortNames()).containsExactly("cpol");
    assertThat(crd.getSpec().getVersions().get(0).getAdditionalPrinterColumns())
        .extracting(c -> c.getName())
        .containsExactlyInAnyOrder("Target", "Ready", "Gate", "Stable", "Canary", "Coverage", "Peak", "Age");
  }

  static Stream<Path> invalidPolicies() throws IOException, URISyntaxException {
    return RejectCorpus.files("/invalid-policies");
  }

  @Test
  void corpusHasAtLeastFifteenInvalidPolicies() throws Exception {
    assertThat(invalidPolicies().count()).isGreaterThanOrEqualTo(15);
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("invalidPolicies")
  void invalidPolicyIsRejectedNamingTheField(Path file) throws IOException {
    String yaml = Files.readString(file, StandardCharsets.UTF_8);
    String expected = RejectCorpus.rejects(file, yaml);
    GenericKubernetesResource policy = load(yaml);

    assertThatThrownBy(() -> policies().resource(policy).create())
        .isInstanceOfSatisfying(KubernetesClientException.class,
            e -> assertThat(e.getCode()).isEqualTo(422))
        .hasMessageContaining(expected);
  }

  private static void collectUndescribed(String path,
      Map<String, io.fabric8.kubernetes.api.model.apiextensions.v1.JSONSchemaProps> properties,
      List<String> undescribed) {
    if (properties == null) {
      return;
    }
    properties.forEach((name, prop) -> {
      String field = path.isEmpty() ? name : path + "." + name;
      if (!field.equals("spec") && !field.equals("status")
          && (prop.getDescription() == null || prop.getDescription().isBlank())) {
        undescribed.add(field);
      }
      collectUndescribed(field, prop.getProperties(), undescribed);
      if (prop.getItems() != null && prop.getItems().getSchema() != null) {
        collectUndescribed(field + "[]", prop.getItems().getSchema().getProperties(),
            undescribed);
      }
    });
  }

  private static MixedOperation<GenericKubernetesResource, GenericKubernetesResourceList,
      Resource<GenericKubernetesResource>> policies() {
    return api.client().genericKubernetesResources("warmgate.io/v1alpha1", "CachePolicy");
  }

  private static String example(String which) throws IOException {
    return Files.readString(ApiServer.repoDir().resolve("examples/cachepolicy-" + which + ".yaml"));
  }

  private static GenericKubernetesResource load(String yaml) {
    GenericKubernetesResource resource =
        Serialization.unmarshal(yaml, GenericKubernetesResource.class);
    resource.getMetadata().setNamespace(namespace);
    return resource;
  }
}
