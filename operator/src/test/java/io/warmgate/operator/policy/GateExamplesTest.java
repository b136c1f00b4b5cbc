package io.warmgate.operator.policy;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.warmgate.contract.Durations;
import io.warmgate.operator.decision.FlaggerHandler;
import io.warmgate.operator.gate.GateStep;
import io.warmgate.operator.gate.GateStyle;
import io.warmgate.operator.gate.RolloutView;
import io.warmgate.operator.model.CachePolicy;
import io.warmgate.operator.model.TargetKind;
import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * The Argo analysis and Flagger examples agree with the operator: the Rollouts are in the
 * analysis style, the AnalysisTemplate and the Canary ask the endpoints the operator serves about
 * the example policy, and the analysis waits as long as the policy's maxWait.
 */
class GateExamplesTest {

  static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());

  static Path file(String name) {
    return ExamplesTest.examples().resolve(name);
  }

  static JsonNode yaml(String name) throws IOException {
    return YAML.readTree(file(name).toFile());
  }

  static CachePolicy policy(String name) throws IOException {
    try (InputStream in = Files.newInputStream(file(name))) {
      return Serialization.unmarshal(in, CachePolicy.class);
    }
  }

  static GateStyle style(String name) throws IOException {
    GenericKubernetesResource rollout;
    try (InputStream in = Files.newInputStream(file(name))) {
      rollout = Serialization.unmarshal(in, GenericKubernetesResource.class);
    }
    return GateStyle.of(rollout, GateStep.resolve(RolloutView.of(rollout).steps(), null), false);
  }

  @Test
  void analysisRolloutsAreInTheAnalysisStyle() throws IOException {
    assertThat(style("analysis/rollout-canary.yaml")).isEqualTo(GateStyle.ANALYSIS);
    assertThat(style("analysis/rollout-bluegreen.yaml")).isEqualTo(GateStyle.ANALYSIS);
  }

  @Test
  void analysisTemplateAsksTheGateEndpointOfThePolicyTheRolloutsName() throws IOException {
    CachePolicy policy = policy("analysis/cachepolicy.yaml");
    assertThat(SpecChecks.problems(policy.getSpec())).isEmpty();
    JsonNode canary = yaml("analysis/rollout-canary.yaml");
    JsonNode blueGreen = yaml("analysis/rollout-bluegreen.yaml");
    assertThat(policy.getSpec().getTargetRef().getName())
        .isEqualTo(canary.at("/metadata/name").asText())
        .isEqualTo(blueGreen.at("/metadata/name").asText());
    JsonNode step = canary.at("/spec/strategy/canary/steps/1/analysis");
    JsonNode pre = blueGreen.at("/spec/strategy/blueGreen/prePromotionAnalysis");
    JsonNode template = yaml("analysis/analysistemplate.yaml");
    for (JsonNode analysis : new JsonNode[] {step, pre}) {
      assertThat(analysis.at("/templates/0/templateName").asText())
          .isEqualTo(template.at("/metadata/name").asText());
      assertThat(analysis.at("/args/0/name").asText()).isEqualTo("policy");
      assertThat(analysis.at("/args/0/value").asText())
          .isEqualTo(policy.getMetadata().getName());
    }

    JsonNode metric = template.at("/spec/metrics/0");
    assertThat(metric.get("successCondition").asText()).isEqualTo("result.warm == true");
    assertThat(metric.get("consecutiveSuccessLimit").asInt()).isGreaterThanOrEqualTo(1);
    String url = metric.at("/provider/web/url").asText()
        .replace("{{args.policy}}", policy.getMetadata().getName());
    assertThat(URI.create(url).getPath()).isEqualTo("/gate/"
        + policy.getMetadata().getNamespace() + "/" + policy.getMetadata().getName());
    // Argo refuses a step analysis that runs indefinitely: count measurements, one per interval,
    // wait as long as maxWait, each "not warm yet" tolerated (failureLimit -1).
    assertThat(metric.get("failureLimit").asInt()).isEqualTo(-1);
    assertThat(metric.has("failureCondition")).isFalse();
    Duration waits = Durations.parse(metric.get("interval").asText())
        .multipliedBy(metric.get("count").asInt());
    assertThat(waits).isEqualTo(Durations.parse(policy.getSpec().getWarmup().getMaxWait()));
  }

  @Test
  void flaggerCanaryCallsConfirmPromotionForThePolicyOfItsTarget() throws IOException {
    CachePolicy policy = policy("flagger/cachepolicy.yaml");
    assertThat(SpecChecks.problems(policy.getSpec())).isEmpty();
    assertThat(policy.getSpec().getTargetRef().getKind()).isEqualTo(TargetKind.Deployment);
    JsonNode canary = yaml("flagger/canary.yaml");
    assertThat(canary.at("/spec/targetRef/kind").asText()).isEqualTo("Deployment");
    assertThat(canary.at("/spec/targetRef/name").asText())
        .isEqualTo(policy.getSpec().getTargetRef().getName());
    assertThat(canary.at("/metadata/namespace").asText())
        .isEqualTo(policy.getMetadata().getNamespace());
    JsonNode hook = canary.at("/spec/analysis/webhooks/0");
    assertThat(hook.get("type").asText()).isEqualTo("confirm-promotion");
    assertThat(URI.create(hook.get("url").asText()).getPath()).isEqualTo(FlaggerHandler.PATH);
    assertThat(hook.at("/metadata/policy").asText()).isEqualTo(policy.getMetadata().getName());
  }

  @Test
  void deploymentExampleGatesItsPodsByReadinessAndPreloads() throws IOException {
    CachePolicy policy = policy("deployment/cachepolicy.yaml");
    assertThat(SpecChecks.problems(policy.getSpec())).isEmpty();
    assertThat(SpecChecks.cannotWork(policy.getSpec())).isEmpty();
    assertThat(policy.getSpec().getTargetRef().getKind()).isEqualTo(TargetKind.Deployment);
    assertThat(policy.getSpec().getWarmup().getMode())
        .as("a pod held unready gets no traffic: only a preload warms it")
        .isEqualTo(io.warmgate.operator.model.WarmupMode.Preload);
    JsonNode deployment = yaml("deployment/deployment.yaml");
    assertThat(deployment.at("/kind").asText()).isEqualTo("Deployment");
    assertThat(deployment.at("/metadata/name").asText())
        .isEqualTo(policy.getSpec().getTargetRef().getName());
    assertThat(deployment.at("/metadata/namespace").asText())
        .isEqualTo(policy.getMetadata().getNamespace());
    assertThat(deployment.at("/spec/template/metadata/labels")
        .path(io.warmgate.operator.inject.PodInjector.POLICY_LABEL).asText())
        .isEqualTo(policy.getMetadata().getName());
    assertThat(deployment.at("/spec/strategy/rollingUpdate/maxUnavailable").asInt())
        .as("old pods keep serving until a new one is warm").isZero();
    Duration deadline = Duration.ofSeconds(deployment.at("/spec/progressDeadlineSeconds")
        .asLong());
    assertThat(deadline).as("not reported stuck while the gate holds it")
        .isGreaterThan(Durations.parse(policy.getSpec().getWarmup().getMaxWait()));
  }

  @Test
  void statefulSetExampleGatesItsPodsByReadinessOneAtATimeAndPreloads() throws IOException {
    CachePolicy policy = policy("statefulset/cachepolicy.yaml");
    assertThat(SpecChecks.problems(policy.getSpec())).isEmpty();
    assertThat(SpecChecks.cannotWork(policy.getSpec())).isEmpty();
    assertThat(policy.getSpec().getTargetRef().getKind()).isEqualTo(TargetKind.StatefulSet);
    assertThat(policy.getSpec().getWarmup().getMode())
        .as("a pod held unready gets no traffic: only a preload warms it")
        .isEqualTo(io.warmgate.operator.model.WarmupMode.Preload);
    JsonNode statefulSet = yaml("statefulset/statefulset.yaml");
    assertThat(statefulSet.at("/kind").asText()).isEqualTo("StatefulSet");
    assertThat(statefulSet.at("/metadata/name").asText())
        .isEqualTo(policy.getSpec().getTargetRef().getName());
    assertThat(statefulSet.at("/metadata/namespace").asText())
        .isEqualTo(policy.getMetadata().getNamespace());
    assertThat(statefulSet.at("/spec/template/metadata/labels")
        .path(io.warmgate.operator.inject.PodInjector.POLICY_LABEL).asText())
        .isEqualTo(policy.getMetadata().getName());
    assertThat(statefulSet.at("/spec/podManagementPolicy").asText())
        .as("each replaced pod must be Ready before the next one goes").isEqualTo("OrderedReady");
    assertThat(statefulSet.at("/spec/updateStrategy/type").asText()).isEqualTo("RollingUpdate");
    JsonNode service = yaml("statefulset/service.yaml");
    assertThat(service.at("/metadata/name").asText())
        .isEqualTo(statefulSet.at("/spec/serviceName").asText());
  }
}
