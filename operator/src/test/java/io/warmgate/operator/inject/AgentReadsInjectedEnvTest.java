package io.warmgate.operator.inject;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.EnvVar;
import io.warmgate.agent.WarmGateConfig;
import io.warmgate.valkey.ValkeyEndpoint;
import io.warmgate.contract.AgentVariables;
import io.warmgate.contract.Durations;
import io.warmgate.operator.model.CachePolicySpec;
import io.warmgate.operator.model.ChangeStreamSpec;
import io.warmgate.operator.model.ValkeyReadFrom;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The names are one list now ({@link AgentVariables}); what is still written twice is how each
 * value is spelled: the webhook's enum values, numbers, booleans and durations, the agent's
 * parsing of them. The agent must read every injected value back as the policy says.
 */
class AgentReadsInjectedEnvTest {

  @Test
  void theAgentReadsEveryInjectedValueAsThePolicySays() {
    CachePolicySpec spec = PodInjectorTest.policy(List.of()).getSpec();
    spec.getValkey().setTlsCaSecretRef(null);
    spec.getValkey().setReadFrom(ValkeyReadFrom.ReplicaPreferred);
    spec.setNegativeTtl("30s");
    spec.setLockTtl("2.5s");
    spec.setL2Timeout("1.5ms");
    spec.setStaleIfError("0");
    spec.setL1MaxSize(5000L);

    Map<String, String> env = new HashMap<>();
    for (EnvVar variable : AgentEnv.of(spec)) {
      env.put(variable.getName(), variable.getValue() != null ? variable.getValue()
          : "from-" + variable.getName());
    }
    WarmGateConfig agent = WarmGateConfig.from(env);

    assertThat(agent.cacheName()).isEqualTo(spec.getCacheName());
    assertThat(agent.keySpaceVersion()).contains(spec.getKeySpaceVersion());
    assertThat(agent.valkeyAddresses()).isEqualTo(spec.getValkey().getAddresses());
    assertThat(agent.valkeyMode()).isEqualTo(ValkeyEndpoint.Mode.CLUSTER);
    assertThat(agent.valkeyReadFrom()).isEqualTo(ValkeyEndpoint.ReadFrom.REPLICA_PREFERRED);
    assertThat(agent.valkeyUsername()).contains(spec.getValkey().getUsername());
    assertThat(agent.valkeyPassword()).contains("from-" + AgentVariables.VALKEY_PASSWORD);
    assertThat(agent.valkeyTls()).isTrue();
    assertThat(agent.valkeyEndpoint()).isPresent();
    assertThat(agent.l1MaxSize()).isEqualTo(5000L);
    assertThat(agent.l1Ttl()).isEqualTo(Durations.parse(spec.getL1Ttl()));
    assertThat(agent.l2Ttl()).isEqualTo(Durations.parse(spec.getL2Ttl()));
    assertThat(agent.negativeTtl()).contains(Durations.parse("30s"));
    assertThat(agent.refreshAhead()).isEqualTo(Durations.parse(spec.getRefreshAhead()));
    assertThat(agent.lockTtl()).isEqualTo(Durations.parse("2.5s"));
    assertThat(agent.l2Timeout()).isEqualTo(Durations.parse("1.5ms"));
    assertThat(agent.maxStaleness()).isEqualTo(Durations.parse(spec.getMaxStaleness()));
    assertThat(agent.staleIfError()).isZero();
    assertThat(agent.changeStream()).contains(spec.getChangeStream().getName());
    assertThat(agent.changeStreamHeartbeat())
        .isEqualTo(Durations.parse(spec.getChangeStream().getHeartbeat()));
    assertThat(agent.podName()).contains("from-" + AgentVariables.POD_NAME);
    assertThat(agent.podNamespace()).contains("from-" + AgentVariables.POD_NAMESPACE);
    assertThat(agent.podTemplateHash()).contains("from-" + AgentVariables.POD_TEMPLATE_HASH);
  }

  /** The CRD's heartbeat range (its CEL rule) is the range the agent accepts, bounds included. */
  @Test
  void theAgentAcceptsTheHeartbeatBoundsTheCrdAdmits() {
    for (String heartbeat : List.of(ChangeStreamSpec.MIN_HEARTBEAT, ChangeStreamSpec.MAX_HEARTBEAT,
        new ChangeStreamSpec().getHeartbeat())) {
      CachePolicySpec spec = PodInjectorTest.policy(List.of()).getSpec();
      spec.getValkey().setTlsCaSecretRef(null);
      spec.setChangeStream(new ChangeStreamSpec("DealChanges", heartbeat));
      Map<String, String> env = new HashMap<>();
      AgentEnv.of(spec).forEach(v -> env.put(v.getName(),
          v.getValue() != null ? v.getValue() : "from-" + v.getName()));

      assertThat(WarmGateConfig.from(env).changeStreamHeartbeat()).as(heartbeat)
          .isEqualTo(Durations.parse(heartbeat));
    }
  }
}
