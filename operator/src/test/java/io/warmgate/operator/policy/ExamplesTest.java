package io.warmgate.operator.policy;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.BeanDescription;
import com.fasterxml.jackson.databind.JavaType;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.introspect.BeanPropertyDefinition;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.warmgate.operator.model.CachePolicy;
import io.warmgate.operator.model.CachePolicySpec;
import io.warmgate.operator.model.TargetKind;
import io.warmgate.operator.model.TimeoutAction;
import io.warmgate.operator.model.WarmupMode;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The examples users copy parse into the model and pass the operator's own checks. */
class ExamplesTest {

  static Path examples() {
    String repo = System.getProperty("warmgate.repo.dir");
    return (repo != null ? Path.of(repo) : Path.of("..")).resolve("examples");
  }

  static CachePolicy load(String file) throws IOException {
    try (InputStream in = Files.newInputStream(examples().resolve(file))) {
      return Serialization.unmarshal(in, CachePolicy.class);
    }
  }

  @Test
  void minimalExampleTakesTheDesignDefaults() throws IOException {
    CachePolicy policy = load("cachepolicy-minimal.yaml");

    assertThat(SpecChecks.problems(policy.getSpec())).isEmpty();
    assertThat(policy.getSpec().getTargetRef().getKind()).isEqualTo(TargetKind.Rollout);
    assertThat(policy.getSpec().getL1Ttl()).isEqualTo("60s");
    assertThat(policy.getSpec().getL2Ttl()).isEqualTo("4m");
    assertThat(policy.getSpec().getRefreshAhead()).isEqualTo("60s");
    assertThat(policy.getSpec().getLockTtl()).isEqualTo("5s");
    assertThat(policy.getSpec().getL2Timeout()).isEqualTo("20ms");
    assertThat(policy.getSpec().getMaxStaleness()).isEqualTo("5m");
    assertThat(policy.getSpec().getWarmup().getMode()).isEqualTo(WarmupMode.Organic);
    assertThat(policy.getSpec().getInjection().getEnabled()).isTrue();
  }

  /**
   * Fields the full example cannot set, each with the reason; the example shows each as a comment.
   * A field added to the model fails {@link #fullExampleSetsEveryField} until the example sets it
   * or it is listed here.
   */
  private static final Map<String, String> NOT_SET_IN_FULL_EXAMPLE = Map.of(
      "spec.valkey.tlsCaSecretRef", "needs tls: true, and the example's Valkey has no TLS");

  @Test
  void fullExampleSetsEveryField() throws IOException {
    CachePolicy policy = load("cachepolicy-full.yaml");
    assertThat(SpecChecks.problems(policy.getSpec())).isEmpty();

    String text = Files.readString(examples().resolve("cachepolicy-full.yaml"));
    JsonNode yaml = new ObjectMapper(new YAMLFactory()).readTree(text);
    List<String> missing = new ArrayList<>();
    missingFields(CachePolicySpec.class, yaml.path("spec"), "spec", missing);
    assertThat(missing).as("fields of the model that cachepolicy-full.yaml does not set")
        .containsExactlyInAnyOrderElementsOf(NOT_SET_IN_FULL_EXAMPLE.keySet());
    for (String field : NOT_SET_IN_FULL_EXAMPLE.keySet()) {
      String name = field.substring(field.lastIndexOf('.') + 1);
      assertThat(text).as("the example shows %s as a comment (%s)", field,
          NOT_SET_IN_FULL_EXAMPLE.get(field)).containsPattern("#\\s*" + name + ":");
    }
    // The parsed model holds what the example says, not its defaults.
    assertThat(policy.getSpec().getValkey().getPasswordSecretKeyRef().getName())
        .isEqualTo("valkey-auth");
    assertThat(policy.getSpec().getWarmup().getMode()).isEqualTo(WarmupMode.Preload);
    assertThat(policy.getSpec().getWarmup().getOnTimeout()).isEqualTo(TimeoutAction.Hold);
    assertThat(policy.getSpec().getWarmup().getMinHitRatio()).isEqualTo(90);
    assertThat(policy.getSpec().getChangeStream().getHeartbeat()).isEqualTo("1s");
  }

  /**
   * Adds to {@code missing} the path of each property of {@code type} (as Jackson reads the model,
   * so as the CRD has it) that {@code node} does not set, descending into the model's own classes
   * and into list elements; an empty list counts as not set.
   */
  private static void missingFields(Class<?> type, JsonNode node, String path, List<String> missing) {
    ObjectMapper mapper = Serialization.jsonMapper();
    BeanDescription bean = mapper.getSerializationConfig().introspect(mapper.constructType(type));
    for (BeanPropertyDefinition property : bean.findProperties()) {
      String name = property.getName();
      JsonNode value = node.path(name);
      String at = path + "." + name;
      if (value.isMissingNode() || value.isNull() || (value.isContainerNode() && value.isEmpty())) {
        missing.add(at);
        continue;
      }
      JavaType javaType = property.getPrimaryType();
      Class<?> raw = javaType.isCollectionLikeType() ? javaType.getContentType().getRawClass()
          : javaType.getRawClass();
      if (!raw.isEnum() && raw.getPackageName().equals(CachePolicySpec.class.getPackageName())) {
        if (value.isArray()) {
          for (int i = 0; i < value.size(); i++) {
            missingFields(raw, value.get(i), at + "[" + i + "]", missing);
          }
        } else {
          missingFields(raw, value, at, missing);
        }
      }
    }
  }
}
