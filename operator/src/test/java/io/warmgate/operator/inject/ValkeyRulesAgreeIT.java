package io.warmgate.operator.inject;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.EnvVar;
import io.warmgate.agent.WarmGateConfig;
import io.warmgate.contract.AgentVariables;
import io.warmgate.operator.model.CaCertificateRef;
import io.warmgate.operator.model.CachePolicySpec;
import io.warmgate.operator.model.TargetKind;
import io.warmgate.operator.model.TargetRef;
import io.warmgate.operator.model.TlsVerify;
import io.warmgate.operator.model.ValkeyMode;
import io.warmgate.operator.model.ValkeyReadFrom;
import io.warmgate.operator.model.ValkeySpec;
import io.warmgate.operator.testing.ApiServer;
import io.warmgate.testing.TestCertificates;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * The CRD and the agent agree on which Valkey settings go together: every combination of mode,
 * one or two addresses, readFrom, tls, a CA and tlsVerify is admitted by the API server (with the
 * generated CRD) exactly when the agent accepts the variables the webhook injects for it.
 */
class ValkeyRulesAgreeIT {

  @RegisterExtension
  static final ApiServer api = new ApiServer();

  static String namespace;
  static String caPem;

  @BeforeAll
  static void installCrd(@TempDir Path dir) {
    api.applyCrd(ApiServer.cachePolicyCrd());
    namespace = api.newNamespace("valkey-rules");
    caPem = TestCertificates.issue(dir).caPem();
  }

  @Test
  void theCrdAdmitsExactlyWhatTheAgentAccepts() {
    List<String> disagreements = new ArrayList<>();
    int combinations = 0;
    int admitted = 0;
    for (ValkeyMode mode : new ValkeyMode[] {null, ValkeyMode.Standalone, ValkeyMode.Cluster}) {
      for (int addresses = 1; addresses <= 2; addresses++) {
        for (ValkeyReadFrom readFrom : new ValkeyReadFrom[] {null, ValkeyReadFrom.Primary,
            ValkeyReadFrom.ReplicaPreferred}) {
          for (boolean tls : new boolean[] {false, true}) {
            for (boolean ca : new boolean[] {false, true}) {
              for (TlsVerify verify : new TlsVerify[] {null, TlsVerify.Full, TlsVerify.CA}) {
                ValkeySpec valkey = valkey(mode, addresses, readFrom, tls, ca, verify);
                String name = "p" + combinations++;
                String crd = crdRefusal(name, valkey);
                String agent = agentRefusal(valkey);
                if ((crd == null) != (agent == null)) {
                  disagreements.add(describe(valkey) + ": CRD " + (crd == null ? "admits" : crd)
                      + "; agent " + (agent == null ? "accepts" : agent));
                }
                admitted += crd == null ? 1 : 0;
              }
            }
          }
        }
      }
    }
    assertThat(disagreements).as("combinations where CRD and agent disagree").isEmpty();
    assertThat(combinations).isEqualTo(216);
    assertThat(admitted).as("some combinations are admitted, some refused")
        .isBetween(1, combinations - 1);
  }

  private static ValkeySpec valkey(ValkeyMode mode, int addresses, ValkeyReadFrom readFrom,
      boolean tls, boolean ca, TlsVerify verify) {
    ValkeySpec valkey = new ValkeySpec();
    valkey.setMode(mode);
    valkey.setAddresses(addresses == 1 ? List.of("valkey-0:6379")
        : List.of("valkey-0:6379", "valkey-1:6379"));
    valkey.setReadFrom(readFrom);
    valkey.setTls(tls);
    valkey.setTlsCaSecretRef(ca ? new CaCertificateRef("valkey-ca", "ca.crt") : null);
    valkey.setTlsVerify(verify);
    return valkey;
  }

  /** The API server's refusal of a policy with {@code valkey}, or null when it admits it. */
  private static String crdRefusal(String name, ValkeySpec valkey) {
    return api.refusal(namespace, name, spec(valkey));
  }


  /** The agent's refusal of what the webhook injects for {@code valkey}, or null. */
  private static String agentRefusal(ValkeySpec valkey) {
    Map<String, String> env = new HashMap<>();
    for (EnvVar variable : AgentEnv.of(spec(valkey))) {
      if (variable.getValue() != null) {
        env.put(variable.getName(), variable.getValue());
      } else if (variable.getName().equals(AgentVariables.VALKEY_TLS_CA)) {
        env.put(variable.getName(), caPem);
      } else {
        env.put(variable.getName(), "from-" + variable.getName().toLowerCase());
      }
    }
    try {
      WarmGateConfig.from(env);
      return null;
    } catch (IllegalArgumentException e) {
      return e.getMessage();
    }
  }

  private static CachePolicySpec spec(ValkeySpec valkey) {
    CachePolicySpec spec = new CachePolicySpec();
    spec.setTargetRef(new TargetRef(TargetKind.Deployment, "app"));
    spec.setCacheName("deals");
    spec.setValkey(valkey);
    return spec;
  }

  private static String describe(ValkeySpec v) {
    return "mode " + v.getMode() + ", " + v.getAddresses().size() + " address(es), readFrom "
        + v.getReadFrom() + ", tls " + v.getTls() + ", CA " + (v.getTlsCaSecretRef() != null)
        + ", tlsVerify " + v.getTlsVerify();
  }
}
