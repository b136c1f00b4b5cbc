package io.warmgate.operator.policy;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.warmgate.operator.model.CachePolicy;
import io.warmgate.operator.model.CachePolicySpec;
import io.warmgate.operator.model.CachePolicyStatus;
import io.warmgate.operator.status.Conditions;
import io.warmgate.operator.valkey.ValkeyClients;
import java.util.ArrayList;
import java.util.List;

/**
 * One reconcile pass of a policy, computed once when it starts: the status as recorded, the
 * working copy the steps write, the spec's problems, and the condition transitions to record as
 * Events when the pass ends.
 *
 * @param recorded the status as the pass found it, to tell whether it needs a patch
 * @param status the status the pass writes
 * @param specProblems {@link SpecChecks#problems} of the spec; empty when it is valid
 */
record PolicyPass(CachePolicy policy, Context<CachePolicy> context, Conditions conditions,
    CachePolicyStatus recorded, CachePolicyStatus status, long generation,
    List<String> specProblems, List<Conditions.Transition> transitions) {

  private static final ObjectMapper JSON = new ObjectMapper();

  static PolicyPass start(CachePolicy policy, Context<CachePolicy> context,
      Conditions conditions) {
    return new PolicyPass(policy, context, conditions, copy(policy.getStatus()),
        copy(policy.getStatus()), generationOf(policy), SpecChecks.problems(policy.getSpec()),
        new ArrayList<>());
  }

  CachePolicySpec spec() {
    return policy.getSpec();
  }

  String namespace() {
    return policy.getMetadata().getNamespace();
  }

  boolean specValid() {
    return specProblems.isEmpty();
  }

  /** Sets condition {@code type} and keeps its transition, if any, for an Event. */
  void report(String type, boolean value, String reason, String message) {
    conditions.set(status, generation, type, value, reason, message).ifPresent(transitions::add);
  }

  /** Sets condition {@code type} and keeps its transition, if any, for an Event. */
  void report(String type, String value, String reason, String message) {
    conditions.set(status, generation, type, value, reason, message).ifPresent(transitions::add);
  }

  /** Sets condition {@code type} without an Event (the gate records its own). */
  void set(String type, String value, String reason, String message) {
    conditions.set(status, generation, type, value, reason, message);
  }

  /** Whether the status the pass wrote differs from the recorded one. */
  boolean statusChanged() {
    return !JSON.valueToTree(recorded).equals(JSON.valueToTree(status));
  }

  /** The name {@link ValkeyClients} keeps this policy's connection under. */
  String valkeyUser() {
    return valkeyUser(policy);
  }

  static String valkeyUser(CachePolicy policy) {
    return ValkeyClients.user(policy.getMetadata().getNamespace(),
        policy.getMetadata().getName());
  }

  static long generationOf(HasMetadata resource) {
    Long generation = resource.getMetadata().getGeneration();
    return generation == null ? 0L : generation;
  }

  /** A deep copy of {@code status}; an empty status for null. */
  static CachePolicyStatus copy(CachePolicyStatus status) {
    return status == null ? new CachePolicyStatus()
        : JSON.convertValue(status, CachePolicyStatus.class);
  }
}
