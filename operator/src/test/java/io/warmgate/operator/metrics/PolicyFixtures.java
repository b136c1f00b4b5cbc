package io.warmgate.operator.metrics;

import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.warmgate.operator.model.CachePolicy;
import io.warmgate.operator.model.CachePolicySpec;
import io.warmgate.operator.model.CachePolicyStatus;
import io.warmgate.operator.model.Condition;
import io.warmgate.operator.model.TargetKind;
import io.warmgate.operator.model.TargetRef;

/** Policies and conditions as the operator's cache holds them, for the metrics tests. */
final class PolicyFixtures {

  private PolicyFixtures() {}

  /** A policy targeting {@code kind}/{@code target}, with an empty status. */
  static CachePolicy policy(String namespace, String name, TargetKind kind, String target) {
    CachePolicy policy = new CachePolicy();
    policy.setMetadata(new ObjectMetaBuilder().withNamespace(namespace).withName(name).build());
    CachePolicySpec spec = new CachePolicySpec();
    spec.setTargetRef(new TargetRef(kind, target));
    policy.setSpec(spec);
    policy.setStatus(new CachePolicyStatus());
    return policy;
  }

  /** A condition whose last transition was at 2026-01-02T03:00:00Z. */
  static Condition condition(String type, String status, String reason) {
    Condition c = new Condition();
    c.setType(type);
    c.setStatus(status);
    c.setReason(reason);
    c.setLastTransitionTime("2026-01-02T03:00:00Z");
    return c;
  }
}
