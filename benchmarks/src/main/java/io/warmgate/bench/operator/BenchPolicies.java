package io.warmgate.bench.operator;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.warmgate.operator.model.CachePolicy;
import io.warmgate.operator.model.CachePolicySpec;
import io.warmgate.operator.model.Condition;
import io.warmgate.operator.model.GatePhase;
import io.warmgate.operator.model.TargetKind;
import io.warmgate.operator.model.TargetRef;
import io.warmgate.operator.model.ValkeySpec;
import io.warmgate.operator.model.WarmupSpec;
import io.warmgate.operator.status.Conditions;
import java.util.List;
import java.util.function.Consumer;

/** Creates CachePolicies targeting a Rollout, and reads what the operator reports on them. */
public final class BenchPolicies {

  private final KubernetesClient client;
  private final String valkeyAddress;

  public BenchPolicies(KubernetesClient client, String valkeyAddress) {
    this.client = client;
    this.valkeyAddress = valkeyAddress;
  }

  /** Creates policy {@code name} for Rollout {@code rollout}; its cache is named like the policy. */
  void create(String namespace, String name, String rollout, Consumer<WarmupSpec> warmup) {
    create(namespace, name, rollout, name, spec -> { }, warmup);
  }

  /**
   * Creates policy {@code name} for Rollout {@code rollout} and cache {@code cacheName};
   * {@code settings} adjusts the spec (TTLs), {@code warmup} its warm-up rules.
   */
  public void create(String namespace, String name, String rollout, String cacheName,
      Consumer<CachePolicySpec> settings, Consumer<WarmupSpec> warmup) {
    CachePolicy policy = new CachePolicy();
    policy.getMetadata().setName(name);
    policy.getMetadata().setNamespace(namespace);
    CachePolicySpec spec = new CachePolicySpec();
    spec.setTargetRef(new TargetRef(TargetKind.Rollout, rollout));
    spec.setCacheName(cacheName);
    ValkeySpec valkey = new ValkeySpec();
    valkey.setAddresses(List.of(valkeyAddress));
    spec.setValkey(valkey);
    WarmupSpec w = new WarmupSpec();
    warmup.accept(w);
    spec.setWarmup(w);
    settings.accept(spec);
    policy.setSpec(spec);
    client.resource(policy).create();
  }

  public CachePolicy get(String namespace, String name) {
    return client.resources(CachePolicy.class).inNamespace(namespace).withName(name).get();
  }

  public void delete(String namespace, String name) {
    client.resources(CachePolicy.class).inNamespace(namespace).withName(name).delete();
  }

  /** The gate phase the operator reports; null before it reported one. */
  public static GatePhase phase(CachePolicy policy) {
    return policy == null || policy.getStatus() == null || policy.getStatus().getGate() == null
        ? null : policy.getStatus().getGate().getPhase();
  }

  /** Whether the status describes the current spec and says Ready=True. */
  static boolean readyForCurrentSpec(CachePolicy policy) {
    if (policy == null || policy.getStatus() == null
        || policy.getStatus().getObservedGeneration() == null
        || !policy.getStatus().getObservedGeneration().equals(policy.getMetadata().getGeneration())) {
      return false;
    }
    return Conditions.find(policy.getStatus(), Conditions.READY).map(Condition::getStatus)
        .filter("True"::equals).isPresent();
  }
}
