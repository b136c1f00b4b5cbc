package io.warmgate.operator.inject;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.admission.v1.AdmissionRequest;
import io.fabric8.kubernetes.api.model.admission.v1.AdmissionResponse;
import io.javaoperatorsdk.webhook.admission.AdmissionRequestHandler;
import io.javaoperatorsdk.webhook.admission.AdmissionUtils;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.warmgate.operator.model.CachePolicy;
import io.warmgate.operator.model.TargetKind;
import io.warmgate.operator.model.TargetRef;
import java.util.EnumMap;
import java.util.Map;
import java.util.Optional;
import java.util.function.BiFunction;
import java.util.function.BiPredicate;
import java.util.function.Predicate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Answers a pod CREATE admission request: configures a pod labelled
 * {@value PodInjector#POLICY_LABEL} for its CachePolicy, and admits every pod, changed or not.
 *
 * <p>Never refuses a pod: a missing policy, a disabled injection or an internal failure admits
 * the pod unchanged (the rollout gate reports pods that lack the agent). Each outcome is counted
 * in {@code warmgate_injection_total{result}}; a missing policy is also an Event (not on dry
 * runs, which must have no side effects).
 */
final class PodInjectionHandler implements AdmissionRequestHandler {

  /** The outcome of one admission request, as counted. */
  enum Result {
    INJECTED("injected"),
    UNCHANGED("unchanged"),
    DISABLED("disabled"),
    NOT_LABELLED("not_labelled"),
    NAMESPACE_NOT_WATCHED("namespace_not_watched"),
    POLICY_NOT_FOUND("policy_not_found"),
    FAILED("failed");

    final String tag;

    Result(String tag) {
      this.tag = tag;
    }
  }

  private static final Logger log = LoggerFactory.getLogger(PodInjectionHandler.class);

  private final BiFunction<String, String, Optional<CachePolicy>> policies;
  private final Predicate<String> watched;
  private final BiPredicate<String, String> flaggerDriven;
  private final InjectionEvents events;
  private final Map<Result, Counter> counters = new EnumMap<>(Result.class);

  /**
   * @param policies finds the policy by namespace and name
   * @param watched whether a namespace's pods are the operator's
   * @param flaggerDriven whether Flagger drives the Deployment of a namespace and name
   * @param events records the missing-policy Event
   * @param registry receives {@code warmgate.injection} counters
   */
  PodInjectionHandler(BiFunction<String, String, Optional<CachePolicy>> policies,
      Predicate<String> watched, BiPredicate<String, String> flaggerDriven,
      InjectionEvents events, MeterRegistry registry) {
    this.policies = policies;
    this.watched = watched;
    this.flaggerDriven = flaggerDriven;
    this.events = events;
    for (Result result : Result.values()) {
      counters.put(result, Counter.builder("warmgate.injection")
          .description("Pod admission requests seen by the injection webhook, by outcome")
          .tag("result", result.tag).register(registry));
    }
  }

  @Override
  public AdmissionResponse handle(AdmissionRequest request) {
    try {
      // The rules register pods only; anything else is admitted as it is.
      if (!(request.getObject() instanceof Pod pod)) {
        return admit(Result.NOT_LABELLED);
      }
      String policyName = pod.getMetadata().getLabels() == null ? null
          : pod.getMetadata().getLabels().get(PodInjector.POLICY_LABEL);
      if (policyName == null || policyName.isBlank()) {
        return admit(Result.NOT_LABELLED);
      }
      String namespace = request.getNamespace();
      if (!watched.test(namespace)) {
        return admit(Result.NAMESPACE_NOT_WATCHED);
      }
      Optional<CachePolicy> policy = policies.apply(namespace, policyName);
      if (policy.isEmpty()) {
        if (!Boolean.TRUE.equals(request.getDryRun())) {
          events.policyNotFound(namespace, pod, policyName);
        }
        log.warn("Pod {} in {} names CachePolicy {}, which does not exist; admitted without the "
            + "agent's configuration", InjectionEvents.describe(pod), namespace, policyName);
        return admit(Result.POLICY_NOT_FOUND);
      }
      Pod injected = PodInjector.inject(pod, policy.get(), readinessGate(namespace, policy.get()));
      if (injected == pod) {
        return admit(Result.DISABLED);
      }
      if (injected.equals(pod)) {
        return admit(Result.UNCHANGED);
      }
      counters.get(Result.INJECTED).increment();
      // The framework computes the RFC 6902 patch (zjsonpatch) between the two objects.
      return AdmissionUtils.admissionResponseFromMutation(pod, injected);
    } catch (RuntimeException e) {
      log.error("Could not configure pod {} in {}; admitted unchanged", request.getName(),
          request.getNamespace(), e);
      return admit(Result.FAILED);
    }
  }

  /**
   * Whether the pod gets the readiness gate: its target's kind asks for it, unless the target is
   * a Deployment Flagger drives. When that cannot be read, the gate is added: the operator sets
   * the condition either way, as it does for any gated pod.
   */
  private boolean readinessGate(String namespace, CachePolicy policy) {
    if (!PodInjector.readinessGated(policy)) {
      return false;
    }
    TargetRef target = policy.getSpec().getTargetRef();
    if (target.getKind() != TargetKind.Deployment) {
      return true;
    }
    try {
      return !flaggerDriven.test(namespace, target.getName());
    } catch (RuntimeException e) {
      log.warn("Could not tell whether Flagger drives Deployment {}/{} ({}); its pod gets the "
          + "readiness gate {}", namespace, target.getName(), e.toString(),
          PodInjector.READINESS_GATE);
      return true;
    }
  }

  private AdmissionResponse admit(Result result) {
    counters.get(result).increment();
    return AdmissionUtils.allowedAdmissionResponse();
  }
}
