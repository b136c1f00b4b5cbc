package io.warmgate.operator.inject;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodReadinessGate;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import io.warmgate.operator.model.CachePolicy;
import io.warmgate.operator.model.InjectionSpec;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * Adds a CachePolicy's {@link AgentEnv agent environment} to a pod. Pure: no I/O, the input pod
 * is never modified.
 *
 * <p>Rules:
 * <ul>
 *   <li>Only the containers named by {@code spec.injection.containers} are configured, or every
 *       app container when the list is empty; init and ephemeral containers never are.</li>
 *   <li>A variable a container already sets in {@code env} is kept as it is, never overwritten;
 *       the others are appended in {@link AgentEnv}'s order. Values from {@code envFrom} are not
 *       consulted: Kubernetes lets {@code env} win over them, so set an override under
 *       {@code env}.</li>
 *   <li>The annotation {@value #ANNOTATION} records the policy, its generation, the configured
 *       containers, the injected names, the names each container kept with its own value, and
 *       listed containers the pod lacks. It is computed from the resulting pod alone, so applying
 *       the injection to its own output changes nothing (admission re-invocation).</li>
 *   <li>A pod of a policy whose target is a {@code Deployment} or a {@code StatefulSet} gets the
 *       readiness gate {@value #READINESS_GATE}, once: the operator sets that condition when the
 *       pod's key space is warm, so the workload's own controller paces the rollout (a
 *       Deployment's {@code maxSurge}/{@code maxUnavailable}; a StatefulSet's rolling update,
 *       which waits for each replaced pod to be Ready). A pod's readiness gates cannot change
 *       after it is created, which is why the webhook is the only place to add it. Not when
 *       Flagger drives the Deployment: its {@code confirm-promotion} webhook is that rollout's
 *       gate, and Flagger fails a canary whose pods stay unready past its deadline.</li>
 * </ul>
 */
public final class PodInjector {

  /** The label naming a pod's CachePolicy. */
  public static final String POLICY_LABEL = "warmgate.io/cache-policy";
  /** The annotation recording what was injected. */
  public static final String ANNOTATION = "warmgate.io/injected";
  /**
   * The pod condition a Deployment's or StatefulSet's pods wait on; named here, where it is
   * added, and set by
   * {@code io.warmgate.operator.readiness}.
   */
  public static final String READINESS_GATE = "warmgate.io/warm";

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final KubernetesSerialization SERIALIZATION = new KubernetesSerialization();

  /**
   * What the annotation says, as JSON.
   *
   * @param policy the CachePolicy's name
   * @param generation the policy generation the values come from
   * @param containers the configured containers
   * @param env the variable names the policy defines
   * @param keptFromPod per container, the names it sets itself with a different value
   * @param missingContainers containers listed in spec.injection.containers the pod lacks
   */
  @JsonInclude(JsonInclude.Include.NON_EMPTY)
  public record InjectionRecord(String policy, Long generation, List<String> containers,
      List<String> env, Map<String, List<String>> keptFromPod, List<String> missingContainers) {

    /** Parses an annotation value; empty when it is absent or not a record. */
    public static Optional<InjectionRecord> parse(String annotation) {
      if (annotation == null) {
        return Optional.empty();
      }
      try {
        return Optional.of(JSON.readValue(annotation, InjectionRecord.class));
      } catch (JsonProcessingException e) {
        return Optional.empty();
      }
    }
  }

  private PodInjector() {}

  /**
   * Returns a copy of {@code pod} configured for {@code policy}, or {@code pod} itself when the
   * policy disables injection.
   *
   * @throws NullPointerException if an argument, the policy's spec or its valkey is null
   */
  public static Pod inject(Pod pod, CachePolicy policy) {
    return inject(pod, policy, readinessGated(policy));
  }

  /** Whether {@code policy}'s target is a kind whose pods wait on {@value #READINESS_GATE}. */
  public static boolean readinessGated(CachePolicy policy) {
    return policy.getSpec().getTargetRef() != null
        && policy.getSpec().getTargetRef().getKind() != null
        && policy.getSpec().getTargetRef().getKind().readinessGated();
  }

  /**
   * As {@link #inject(Pod, CachePolicy)}, adding the readiness gate when {@code readinessGate}
   * says so rather than by the target's kind alone.
   */
  public static Pod inject(Pod pod, CachePolicy policy, boolean readinessGate) {
    Objects.requireNonNull(pod, "pod");
    InjectionSpec injection = policy.getSpec().getInjection();
    if (injection != null && Boolean.FALSE.equals(injection.getEnabled())) {
      return pod;
    }
    List<EnvVar> agentEnv = AgentEnv.of(policy.getSpec());
    List<String> wanted = injection == null || injection.getContainers() == null
        ? List.of() : injection.getContainers();

    Pod copy = SERIALIZATION.clone(pod);
    List<Container> containers = copy.getSpec() == null || copy.getSpec().getContainers() == null
        ? List.of() : copy.getSpec().getContainers();
    Set<String> present = containers.stream().map(Container::getName).collect(Collectors.toSet());
    List<String> configured = new ArrayList<>();
    Map<String, List<String>> kept = new LinkedHashMap<>();
    for (Container container : containers) {
      if (!wanted.isEmpty() && !wanted.contains(container.getName())) {
        continue;
      }
      configured.add(container.getName());
      List<String> own = configure(container, agentEnv);
      if (!own.isEmpty()) {
        kept.put(container.getName(), own);
      }
    }
    List<String> missing = wanted.stream().filter(name -> !present.contains(name)).toList();

    InjectionRecord record = new InjectionRecord(policy.getMetadata().getName(),
        policy.getMetadata().getGeneration(), configured,
        agentEnv.stream().map(EnvVar::getName).toList(), kept, missing);
    Map<String, String> annotations = copy.getMetadata().getAnnotations() == null
        ? new HashMap<>() : new HashMap<>(copy.getMetadata().getAnnotations());
    try {
      annotations.put(ANNOTATION, JSON.writeValueAsString(record));
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("cannot write the " + ANNOTATION + " annotation", e);
    }
    copy.getMetadata().setAnnotations(annotations);
    if (readinessGate) {
      addReadinessGate(copy);
    }
    return copy;
  }

  /** Adds {@value #READINESS_GATE} to {@code pod}'s readiness gates unless it is there. */
  private static void addReadinessGate(Pod pod) {
    if (pod.getSpec() == null) {
      return;
    }
    List<PodReadinessGate> gates = pod.getSpec().getReadinessGates() == null
        ? new ArrayList<>() : new ArrayList<>(pod.getSpec().getReadinessGates());
    if (gates.stream().noneMatch(g -> READINESS_GATE.equals(g.getConditionType()))) {
      gates.add(new PodReadinessGate(READINESS_GATE));
    }
    pod.getSpec().setReadinessGates(gates);
  }

  /** Appends the variables {@code container} lacks; returns those it sets to another value. */
  private static List<String> configure(Container container, List<EnvVar> agentEnv) {
    List<EnvVar> env = container.getEnv() == null
        ? new ArrayList<>() : new ArrayList<>(container.getEnv());
    Map<String, EnvVar> existing = new HashMap<>();
    env.forEach(e -> existing.putIfAbsent(e.getName(), e));
    List<String> own = new ArrayList<>();
    for (EnvVar var : agentEnv) {
      EnvVar set = existing.get(var.getName());
      if (set == null) {
        env.add(var);
      } else if (!set.equals(var)) {
        own.add(var.getName());
      }
    }
    container.setEnv(env);
    return own;
  }
}
