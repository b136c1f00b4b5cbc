package io.warmgate.operator.inject;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.EnvVarBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.warmgate.contract.AgentVariables;
import io.warmgate.operator.model.CachePolicy;
import io.warmgate.operator.model.CachePolicySpec;
import io.warmgate.operator.model.ChangeStreamSpec;
import io.warmgate.operator.model.SecretKeyRef;
import io.warmgate.operator.model.TargetKind;
import io.warmgate.operator.model.TargetRef;
import io.warmgate.operator.model.ValkeySpec;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class PodInjectorTest {

  static CachePolicy policy(List<String> containers) {
    CachePolicy policy = new CachePolicy();
    policy.getMetadata().setName("deals");
    policy.getMetadata().setGeneration(3L);
    CachePolicySpec spec = new CachePolicySpec();
    spec.setTargetRef(new TargetRef(TargetKind.Rollout, "deal-service"));
    spec.setCacheName("deals");
    spec.setKeySpaceVersion("2026-03-cents");
    ValkeySpec valkey = new ValkeySpec();
    valkey.setAddresses(List.of("valkey-0:6379", "valkey-1:6379"));
    valkey.setTls(true);
    valkey.setUsername("deals");
    valkey.setPasswordSecretKeyRef(new SecretKeyRef("valkey-auth", "secret"));
    valkey.setMode(io.warmgate.operator.model.ValkeyMode.Cluster);
    valkey.setTlsCaSecretRef(new io.warmgate.operator.model.CaCertificateRef("valkey-ca",
        "ca.crt"));
    spec.setValkey(valkey);
    spec.getInjection().setContainers(containers);
    spec.setChangeStream(new ChangeStreamSpec("DealChanges", "500ms"));
    policy.setSpec(spec);
    return policy;
  }

  static Pod pod() {
    return new PodBuilder().withNewMetadata().withGenerateName("deal-service-")
        .addToLabels(PodInjector.POLICY_LABEL, "deals").endMetadata()
        .withNewSpec()
        .addNewInitContainer().withName("migrate").withImage("migrate:1").endInitContainer()
        .addNewContainer().withName("app").withImage("app:1")
        .addNewEnv().withName("WARMGATE_L1_TTL").withValue("5s").endEnv()
        .addNewEnv().withName("JAVA_OPTS").withValue("-Xmx1g").endEnv()
        .endContainer()
        .addNewContainer().withName("proxy").withImage("proxy:1").endContainer()
        .endSpec().build();
  }

  static EnvVar value(String name, String value) {
    return new EnvVarBuilder().withName(name).withValue(value).build();
  }

  static EnvVar field(String name, String path) {
    return new EnvVarBuilder().withName(name).withNewValueFrom().withNewFieldRef()
        .withApiVersion("v1").withFieldPath(path).endFieldRef().endValueFrom().build();
  }

  /** The exact environment of the example policy, in order. */
  static List<EnvVar> expectedAgentEnv() {
    return List.of(
        value("WARMGATE_CACHE_NAME", "deals"),
        value("WARMGATE_VALKEY_ADDRESSES", "valkey-0:6379,valkey-1:6379"),
        value("WARMGATE_VALKEY_MODE", "cluster"),
        value("WARMGATE_VALKEY_READ_FROM", "primary"),
        value("WARMGATE_VALKEY_USERNAME", "deals"),
        new EnvVarBuilder().withName("WARMGATE_VALKEY_PASSWORD").withNewValueFrom()
            .withNewSecretKeyRef().withName("valkey-auth").withKey("secret").endSecretKeyRef()
            .endValueFrom().build(),
        value("WARMGATE_VALKEY_TLS", "true"),
        new EnvVarBuilder().withName("WARMGATE_VALKEY_TLS_CA").withNewValueFrom()
            .withNewSecretKeyRef().withName("valkey-ca").withKey("ca.crt").endSecretKeyRef()
            .endValueFrom().build(),
        value("WARMGATE_VALKEY_TLS_VERIFY", "full"),
        value("WARMGATE_L1_TTL", "60s"),
        value("WARMGATE_L1_MAX_SIZE", "100000"),
        value("WARMGATE_L2_TTL", "4m"),
        value("WARMGATE_REFRESH_AHEAD", "60s"),
        value("WARMGATE_LOCK_TTL", "5s"),
        value("WARMGATE_L2_TIMEOUT", "20ms"),
        value("WARMGATE_MAX_STALENESS", "5m"),
        value("WARMGATE_STALE_IF_ERROR", "5m"),
        value("WARMGATE_KEY_SPACE_VERSION", "2026-03-cents"),
        value("WARMGATE_CHANGE_STREAM", "DealChanges"),
        value("WARMGATE_CHANGE_STREAM_HEARTBEAT", "500ms"),
        field("WARMGATE_POD_NAME", "metadata.name"),
        field("WARMGATE_POD_NAMESPACE", "metadata.namespace"),
        field("WARMGATE_POD_TEMPLATE_HASH", "metadata.labels['rollouts-pod-template-hash']"));
  }

  @Test
  void agentEnvIsExactlyThePolicy() {
    assertThat(AgentEnv.of(policy(List.of()).getSpec())).containsExactlyElementsOf(
        expectedAgentEnv());
  }

  @Test
  void withoutKeySpaceVersionNoneIsInjected() {
    CachePolicy policy = policy(List.of());
    policy.getSpec().setKeySpaceVersion(null);

    assertThat(AgentEnv.of(policy.getSpec())).extracting(EnvVar::getName)
        .doesNotContain(AgentVariables.KEY_SPACE_VERSION)
        .hasSize(expectedAgentEnv().size() - 1);
  }

  @Test
  void withoutChangeStreamNoneIsInjected() {
    CachePolicy policy = policy(List.of());
    policy.getSpec().setChangeStream(null);

    assertThat(AgentEnv.of(policy.getSpec())).extracting(EnvVar::getName)
        .doesNotContain(AgentVariables.CHANGE_STREAM, AgentVariables.CHANGE_STREAM_HEARTBEAT)
        .hasSize(expectedAgentEnv().size() - 2);
  }

  @Test
  void changeStreamWithTheDefaultHeartbeatInjectsItToo() {
    CachePolicy policy = policy(List.of());
    policy.getSpec().setChangeStream(new ChangeStreamSpec());
    policy.getSpec().getChangeStream().setName("ProductChanges");

    assertThat(AgentEnv.of(policy.getSpec())).contains(
        value(AgentVariables.CHANGE_STREAM, "ProductChanges"),
        value(AgentVariables.CHANGE_STREAM_HEARTBEAT, "1s"));
  }

  @Test
  void passwordIsAReferenceNeverAValue() {
    EnvVar password = AgentEnv.of(policy(List.of()).getSpec()).stream()
        .filter(e -> e.getName().equals(AgentVariables.VALKEY_PASSWORD)).findFirst().orElseThrow();
    assertThat(password.getValue()).isNull();
    assertThat(password.getValueFrom().getSecretKeyRef().getName()).isEqualTo("valkey-auth");
  }

  @Test
  void withoutCredentialsNoUserOrPasswordIsInjected() {
    CachePolicy policy = policy(List.of());
    policy.getSpec().getValkey().setUsername(null);
    policy.getSpec().getValkey().setPasswordSecretKeyRef(null);
    assertThat(AgentEnv.of(policy.getSpec())).extracting(EnvVar::getName)
        .doesNotContain(AgentVariables.VALKEY_USERNAME, AgentVariables.VALKEY_PASSWORD)
        .hasSize(expectedAgentEnv().size() - 2);
  }

  @Test
  void configuresEveryAppContainerKeepingWhatTheyAlreadySet() {
    Pod original = pod();
    Pod injected = PodInjector.inject(original, policy(List.of()));

    Container app = injected.getSpec().getContainers().get(0);
    List<EnvVar> expectedApp = new java.util.ArrayList<>(List.of(
        value("WARMGATE_L1_TTL", "5s"), value("JAVA_OPTS", "-Xmx1g")));
    expectedAgentEnv().stream().filter(e -> !e.getName().equals("WARMGATE_L1_TTL"))
        .forEach(expectedApp::add);
    assertThat(app.getEnv()).containsExactlyElementsOf(expectedApp);
    assertThat(injected.getSpec().getContainers().get(1).getEnv())
        .containsExactlyElementsOf(expectedAgentEnv());
    assertThat(injected.getSpec().getInitContainers().get(0).getEnv()).isEmpty();
    assertThat(original).isEqualTo(pod());

    PodInjector.InjectionRecord record = PodInjector.InjectionRecord.parse(
        injected.getMetadata().getAnnotations().get(PodInjector.ANNOTATION)).orElseThrow();
    assertThat(record.policy()).isEqualTo("deals");
    assertThat(record.generation()).isEqualTo(3L);
    assertThat(record.containers()).containsExactly("app", "proxy");
    assertThat(record.env()).containsExactlyElementsOf(
        expectedAgentEnv().stream().map(EnvVar::getName).toList());
    assertThat(record.keptFromPod()).isEqualTo(Map.of("app", List.of("WARMGATE_L1_TTL")));
    assertThat(record.missingContainers()).isNullOrEmpty();
  }

  @Test
  void configuresOnlyTheListedContainersAndRecordsMissingOnes() {
    Pod injected = PodInjector.inject(pod(), policy(List.of("proxy", "worker")));

    assertThat(injected.getSpec().getContainers().get(0).getEnv()).hasSize(2);
    assertThat(injected.getSpec().getContainers().get(1).getEnv())
        .containsExactlyElementsOf(expectedAgentEnv());
    PodInjector.InjectionRecord record = PodInjector.InjectionRecord.parse(
        injected.getMetadata().getAnnotations().get(PodInjector.ANNOTATION)).orElseThrow();
    assertThat(record.containers()).containsExactly("proxy");
    assertThat(record.missingContainers()).containsExactly("worker");
  }

  @Test
  void injectingTwiceChangesNothing() {
    CachePolicy policy = policy(List.of());
    Pod once = PodInjector.inject(pod(), policy);
    Pod twice = PodInjector.inject(once, policy);
    assertThat(twice).isEqualTo(once);
  }

  @Test
  void disabledInjectionReturnsThePodItself() {
    CachePolicy policy = policy(List.of());
    policy.getSpec().getInjection().setEnabled(false);
    Pod pod = pod();
    assertThat(PodInjector.inject(pod, policy)).isSameAs(pod);
  }

  @Test
  void podsOfADeploymentPolicyGetTheWarmReadinessGateOnceAndKeepTheirOwn() {
    CachePolicy policy = policy(List.of());
    policy.getSpec().setTargetRef(new TargetRef(TargetKind.Deployment, "deal-service"));
    Pod pod = new PodBuilder(pod()).editSpec().addNewReadinessGate()
        .withConditionType("example.com/lb").endReadinessGate().endSpec().build();

    Pod injected = PodInjector.inject(pod, policy);

    assertThat(injected.getSpec().getReadinessGates())
        .extracting(io.fabric8.kubernetes.api.model.PodReadinessGate::getConditionType)
        .containsExactly("example.com/lb", PodInjector.READINESS_GATE);
    assertThat(PodInjector.inject(injected, policy)).isEqualTo(injected);
  }

  @Test
  void podsOfAStatefulSetPolicyGetTheWarmReadinessGate() {
    CachePolicy policy = policy(List.of());
    policy.getSpec().setTargetRef(new TargetRef(TargetKind.StatefulSet, "deal-store"));

    Pod injected = PodInjector.inject(pod(), policy);

    assertThat(injected.getSpec().getReadinessGates())
        .extracting(io.fabric8.kubernetes.api.model.PodReadinessGate::getConditionType)
        .containsExactly(PodInjector.READINESS_GATE);
    assertThat(PodInjector.inject(injected, policy)).isEqualTo(injected);
  }

  @Test
  void podsOfARolloutPolicyGetNoReadinessGate() {
    Pod injected = PodInjector.inject(pod(), policy(List.of()));

    assertThat(injected.getSpec().getReadinessGates()).isNullOrEmpty();
  }
}
