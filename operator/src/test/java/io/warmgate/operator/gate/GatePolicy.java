package io.warmgate.operator.gate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.warmgate.operator.model.CachePolicy;
import io.warmgate.operator.model.CachePolicySpec;
import io.warmgate.operator.model.GatePhase;
import io.warmgate.operator.model.GateStatus;
import io.warmgate.operator.model.KeySpaceStatus;
import io.warmgate.operator.model.TargetKind;
import io.warmgate.operator.model.TargetRef;
import io.warmgate.operator.model.ValkeySpec;
import io.warmgate.operator.model.WarmupSpec;
import io.warmgate.operator.testing.Policies;
import java.util.List;
import java.util.function.Consumer;

/**
 * The CachePolicy {@code deals} of a gate test: targets Rollout {@code app}, uses the namespace as
 * its cache name (the key space {@link FakeAgents} writes), and exposes its gate status.
 */
final class GatePolicy {

  static final String NAME = "deals";

  private final KubernetesClient client;
  private final Policies policies;
  private final String namespace;
  private final String valkeyAddress;

  GatePolicy(KubernetesClient client, String namespace, String valkeyAddress) {
    this.client = client;
    this.policies = new Policies(client);
    this.namespace = namespace;
    this.valkeyAddress = valkeyAddress;
  }

  /** Creates the policy with the warm-up rules {@code warmup} sets on the defaults. */
  void create(Consumer<WarmupSpec> warmup) {
    CachePolicy policy = new CachePolicy();
    policy.getMetadata().setName(NAME);
    policy.getMetadata().setNamespace(namespace);
    CachePolicySpec spec = new CachePolicySpec();
    spec.setTargetRef(new TargetRef(TargetKind.Rollout, "app"));
    spec.setCacheName(namespace);
    ValkeySpec valkey = new ValkeySpec();
    valkey.setAddresses(List.of(valkeyAddress));
    spec.setValkey(valkey);
    WarmupSpec w = new WarmupSpec();
    warmup.accept(w);
    spec.setWarmup(w);
    policy.setSpec(spec);
    client.resource(policy).create();
  }

  /** The gate status; empty before the operator wrote one. */
  GateStatus gate() {
    CachePolicy policy = policies.get(namespace, NAME);
    return policy.getStatus() == null || policy.getStatus().getGate() == null ? new GateStatus()
        : policy.getStatus().getGate();
  }

  List<KeySpaceStatus> keySpaces() {
    return policies.get(namespace, NAME).getStatus().getKeySpaces();
  }

  GateStatus awaitPhase(GatePhase phase) {
    await().atMost(Policies.WITHIN).untilAsserted(() ->
        assertThat(gate().getPhase()).as("gate phase (%s)", gate().getMessage())
            .isEqualTo(phase));
    return gate();
  }
}
