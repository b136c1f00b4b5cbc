package io.warmgate.operator.badinput;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.FieldValidateable.Validation;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.warmgate.operator.testing.ApiServer;
import io.warmgate.operator.testing.RejectCorpus;
import java.io.IOException;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Bad CachePolicy YAML beyond the invalid-policies corpus of CrdValidationIT: wrong field kinds,
 * huge values, names that could break key spaces, unknown fields. Each file under
 * {@code bad-input/policies/} states in its {@code # rejects: } line what the API server must
 * answer; creates use server-side field validation {@code Strict}, as {@code kubectl apply} does.
 */
class BadPolicyYamlIT {

  @RegisterExtension
  static final ApiServer api = new ApiServer();

  static String namespace;

  @BeforeAll
  static void installCrd() {
    api.applyCrd(ApiServer.cachePolicyCrd());
    namespace = api.newNamespace("bad-yaml");
  }

  static Stream<Path> badPolicies() throws IOException, URISyntaxException {
    return RejectCorpus.files("/bad-input/policies");
  }

  @Test
  void corpusHasItsTwentyEightCases() throws Exception {
    // A case file lost in a merge would otherwise pass unnoticed.
    assertThat(badPolicies().count()).isEqualTo(28);
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("badPolicies")
  void badPolicyIsRefusedNamingTheField(Path file) throws IOException {
    String yaml = Files.readString(file, StandardCharsets.UTF_8);
    String expected = RejectCorpus.rejects(file, yaml);
    GenericKubernetesResource policy = Serialization.unmarshal(yaml, GenericKubernetesResource.class);
    policy.getMetadata().setNamespace(namespace);

    assertThatThrownBy(() -> api.client().resource(policy).fieldValidation(Validation.STRICT)
        .create())
        .isInstanceOfSatisfying(KubernetesClientException.class,
            e -> assertThat(e.getCode()).isIn(400, 422))
        .hasMessageContaining(expected);
  }
}
