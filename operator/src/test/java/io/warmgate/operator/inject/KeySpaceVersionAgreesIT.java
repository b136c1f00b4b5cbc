package io.warmgate.operator.inject;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.EnvVar;
import io.warmgate.agent.WarmGateConfig;
import io.warmgate.contract.AgentVariables;
import io.warmgate.operator.model.CachePolicySpec;
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
 * The CRD admits a {@code spec.keySpaceVersion} exactly when the agent accepts the
 * {@code WARMGATE_KEY_SPACE_VERSION} the webhook injects for it, so no admitted policy makes its
 * pods fail at start. Values with leading or trailing blanks are left out: the agent trims every
 * variable, the CRD refuses them.
 */
class KeySpaceVersionAgreesIT {

  @RegisterExtension
  static final ApiServer api = new ApiServer();

  static final List<String> VALUES = List.of("2", "v2", "V2", "2026-03-cents", "release_7.1",
      "...", "-", "a".repeat(63), "a".repeat(64), "v 2", "v2:cents", "{v2}", "v2*", "v/2",
      "déals", "v\t2", "v2;x", "2🚀");

  static String namespace;

  @BeforeAll
  static void installCrd() {
    api.applyCrd(ApiServer.cachePolicyCrd());
    namespace = api.newNamespace("key-space-version");
  }

  @Test
  void theCrdAdmitsExactlyWhatTheAgentAccepts() {
    List<String> disagreements = new ArrayList<>();
    int admitted = 0;
    for (int i = 0; i < VALUES.size(); i++) {
      String version = VALUES.get(i);
      String crd = crdRefusal("p" + i, version);
      String agent = agentRefusal(version);
      if ((crd == null) != (agent == null)) {
        disagreements.add("'" + version + "': CRD " + (crd == null ? "admits" : crd)
            + "; agent " + (agent == null ? "accepts" : agent));
      }
      admitted += crd == null ? 1 : 0;
    }
    assertThat(disagreements).as("values where CRD and agent disagree").isEmpty();
    assertThat(admitted).as("the first eight are well formed").isEqualTo(8);
  }

  private static String crdRefusal(String name, String version) {
    String refusal = api.refusal(namespace, name, spec(version));
    if (refusal != null) {
      assertThat(refusal).contains("spec.keySpaceVersion");
    }
    return refusal;
  }

  private static String agentRefusal(String version) {
    Map<String, String> env = new HashMap<>();
    for (EnvVar variable : AgentEnv.of(spec(version))) {
      if (variable.getValue() != null) {
        env.put(variable.getName(), variable.getValue());
      }
    }
    assertThat(env).containsEntry(AgentVariables.KEY_SPACE_VERSION, version);
    try {
      WarmGateConfig.from(env);
      return null;
    } catch (IllegalArgumentException e) {
      assertThat(e.getMessage()).startsWith(AgentVariables.KEY_SPACE_VERSION + "='" + version + "'");
      return e.getMessage();
    }
  }

  private static CachePolicySpec spec(String version) {
    CachePolicySpec spec = new CachePolicySpec();
    spec.setTargetRef(new TargetRef(TargetKind.Deployment, "app"));
    spec.setCacheName("deals");
    spec.setKeySpaceVersion(version);
    ValkeySpec valkey = new ValkeySpec();
    valkey.setAddresses(List.of("valkey:6379"));
    spec.setValkey(valkey);
    return spec;
  }
}
