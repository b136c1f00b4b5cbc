package io.warmgate.operator.inject;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.EnvVar;
import io.warmgate.agent.WarmGateConfig;
import io.warmgate.contract.AgentVariables;
import io.warmgate.operator.model.CachePolicySpec;
import io.warmgate.operator.model.ChangeStreamSpec;
import io.warmgate.operator.model.TargetKind;
import io.warmgate.operator.model.TargetRef;
import io.warmgate.operator.model.ValkeySpec;
import io.warmgate.operator.testing.ApiServer;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The CRD admits a {@code spec.changeStream} exactly when the agent accepts the
 * {@code WARMGATE_CHANGE_STREAM} and {@code WARMGATE_CHANGE_STREAM_HEARTBEAT} the webhook injects
 * for it, so no admitted policy makes its pods fail at start. Blank names are left out: the agent
 * reads an empty variable as unset, the CRD refuses it.
 */
class ChangeStreamAgreesIT {

  @RegisterExtension
  static final ApiServer api = new ApiServer();

  static final List<String> NAMES = List.of("DealChanges", "a", "Deal_Changes_2", "Z9",
      "a".repeat(128), "a".repeat(129), "deal-changes", "1Changes", "_Changes", "Deal Changes",
      "Déals", "Deal.Changes", "Deal$", "{DealChanges}");
  static final List<String> HEARTBEATS = List.of("1s", "100ms", "0.1s", "5m", "300s", "299999ms",
      "2m30s", "99ms", "0", "0s", "5m1ms", "1h", "1", "1 s", "-1s", "1sec");

  static String namespace;

  @BeforeAll
  static void installCrd() {
    api.applyCrd(ApiServer.cachePolicyCrd());
    namespace = api.newNamespace("change-stream");
  }

  @Test
  void theCrdAdmitsExactlyTheNamesTheAgentAccepts() {
    List<String> disagreements = new ArrayList<>();
    int admitted = 0;
    for (int i = 0; i < NAMES.size(); i++) {
      ChangeStreamSpec changes = new ChangeStreamSpec(NAMES.get(i), "1s");
      String crd = crdRefusal("n" + i, changes, "spec.changeStream.name");
      String agent = agentRefusal(changes, AgentVariables.CHANGE_STREAM, changes.getName());
      if ((crd == null) != (agent == null)) {
        disagreements.add("'" + changes.getName() + "': CRD " + (crd == null ? "admits" : crd)
            + "; agent " + (agent == null ? "accepts" : agent));
      }
      admitted += crd == null ? 1 : 0;
    }
    assertThat(disagreements).as("names where CRD and agent disagree").isEmpty();
    assertThat(admitted).as("the first five are Spanner identifiers").isEqualTo(5);
  }

  @Test
  void theCrdAdmitsExactlyTheHeartbeatsTheAgentAccepts() {
    List<String> disagreements = new ArrayList<>();
    int admitted = 0;
    for (int i = 0; i < HEARTBEATS.size(); i++) {
      ChangeStreamSpec changes = new ChangeStreamSpec("DealChanges", HEARTBEATS.get(i));
      String crd = crdRefusal("h" + i, changes, "spec.changeStream.heartbeat");
      String agent = agentRefusal(changes, AgentVariables.CHANGE_STREAM_HEARTBEAT,
          changes.getHeartbeat());
      if ((crd == null) != (agent == null)) {
        disagreements.add("'" + changes.getHeartbeat() + "': CRD "
            + (crd == null ? "admits" : crd) + "; agent " + (agent == null ? "accepts" : agent));
      }
      admitted += crd == null ? 1 : 0;
    }
    assertThat(disagreements).as("heartbeats where CRD and agent disagree").isEmpty();
    assertThat(admitted).as("the first seven are from 100ms to 5m").isEqualTo(7);
  }

  @Test
  void aRefusedHeartbeatIsExplainedWithTheRange() {
    assertThat(api.refusal(namespace, "range", spec(new ChangeStreamSpec("DealChanges", "6m"))))
        .contains("spec.changeStream.heartbeat")
        .contains("changeStream.heartbeat must be a duration from 100ms to 5m");
  }

  private static String crdRefusal(String name, ChangeStreamSpec changes, String field) {
    String refusal = api.refusal(namespace, name, spec(changes));
    if (refusal != null) {
      assertThat(refusal).contains(field);
    }
    return refusal;
  }

  private static String agentRefusal(ChangeStreamSpec changes, String variable, String value) {
    Map<String, String> env = new HashMap<>();
    for (EnvVar injected : AgentEnv.of(spec(changes))) {
      if (injected.getValue() != null) {
        env.put(injected.getName(), injected.getValue());
      }
    }
    assertThat(env).containsEntry(variable, value);
    try {
      WarmGateConfig.from(env);
      return null;
    } catch (IllegalArgumentException e) {
      assertThat(e.getMessage()).startsWith(variable + "='" + value + "'");
      return e.getMessage();
    }
  }

  private static CachePolicySpec spec(ChangeStreamSpec changes) {
    CachePolicySpec spec = new CachePolicySpec();
    spec.setTargetRef(new TargetRef(TargetKind.Deployment, "app"));
    spec.setCacheName("deals");
    ValkeySpec valkey = new ValkeySpec();
    valkey.setAddresses(List.of("valkey:6379"));
    spec.setValkey(valkey);
    spec.setChangeStream(changes);
    return spec;
  }
}
