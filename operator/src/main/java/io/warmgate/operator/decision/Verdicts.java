package io.warmgate.operator.decision;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.warmgate.operator.gate.NewPodsGate;
import io.warmgate.operator.gate.WarmVerdict;
import io.warmgate.operator.model.CachePolicy;
import io.warmgate.operator.model.TargetKind;
import io.warmgate.operator.model.TargetRef;
import io.warmgate.operator.revision.NewPods;
import io.warmgate.operator.revision.Revisions;
import io.warmgate.operator.valkey.ValkeyClients;
import io.warmgate.operator.valkey.ValkeyCommands;
import java.util.List;
import java.util.Optional;

/**
 * Finds a policy and its target's new pods, and asks {@link NewPodsGate#read} whether they are
 * warm. Read-only: the policy and its target come from the API server, the statistics through
 * the Valkey connection this replica's reconciler opened for the policy, so the leader answers
 * and a follower answers "not warm" saying so.
 */
public class Verdicts {

  static final String ROLLOUT_API_VERSION = "argoproj.io/v1alpha1";

  private final KubernetesClient client;
  private final ValkeyClients valkey;
  private final NewPodsGate gate;

  public Verdicts(KubernetesClient client, ValkeyClients valkey, NewPodsGate gate) {
    this.client = client;
    this.valkey = valkey;
    this.gate = gate;
  }

  /** What a lookup found: a verdict, or why there is none (a 404's message). */
  public record Found(WarmVerdict verdict, String policy, String missing) {
    static Found missing(String why) {
      return new Found(null, null, why);
    }
  }

  /** The verdict on CachePolicy {@code namespace/name}'s target. */
  public Found of(String namespace, String name) {
    CachePolicy policy = client.resources(CachePolicy.class).inNamespace(namespace)
        .withName(name).get();
    if (policy == null || policy.getSpec() == null || policy.getSpec().getTargetRef() == null) {
      return Found.missing("CachePolicy " + namespace + "/" + name + " not found; list them with "
          + "kubectl get cpol -n " + namespace);
    }
    return of(policy);
  }

  /**
   * The verdict for Flagger Canary {@code namespace/canary}: the policy named {@code policy}
   * when given (the webhook's {@code metadata.policy}), else the one policy of the namespace
   * whose {@code targetRef} is the Deployment named like the Canary.
   */
  public Found forCanary(String namespace, String canary, String policy) {
    if (policy != null) {
      return of(namespace, policy);
    }
    List<CachePolicy> targeting = client.resources(CachePolicy.class).inNamespace(namespace)
        .list().getItems().stream().filter(p -> p.getSpec() != null
            && p.getSpec().getTargetRef() != null
            && p.getSpec().getTargetRef().getKind() == TargetKind.Deployment
            && canary.equals(p.getSpec().getTargetRef().getName())).toList();
    if (targeting.size() != 1) {
      return Found.missing((targeting.isEmpty() ? "no CachePolicy" : targeting.size()
          + " CachePolicies") + " in namespace " + namespace + " target Deployment " + canary
          + " (named like the Canary); name the policy in the webhook's metadata "
          + "(metadata: {policy: <name>})");
    }
    return of(targeting.get(0));
  }

  private Found of(CachePolicy policy) {
    String namespace = policy.getMetadata().getNamespace();
    String name = policy.getMetadata().getName();
    TargetRef ref = policy.getSpec().getTargetRef();
    Optional<NewPods> pods;
    if (ref.getKind() == TargetKind.Deployment) {
      pods = Revisions.ofDeployment(client, namespace, ref.getName());
    } else if (ref.getKind() == TargetKind.StatefulSet) {
      pods = Revisions.ofStatefulSet(client, namespace, ref.getName());
    } else {
      GenericKubernetesResource rollout = client.genericKubernetesResources(ROLLOUT_API_VERSION,
          "Rollout").inNamespace(namespace).withName(ref.getName()).get();
      pods = Optional.ofNullable(rollout).map(r -> Revisions.ofRollout(client, r));
    }
    if (pods.isEmpty()) {
      return Found.missing(ref.getKind() + " " + namespace + "/" + ref.getName() + " named by "
          + "CachePolicy " + namespace + "/" + name + " does not exist; create it or fix "
          + "spec.targetRef.name");
    }
    ValkeyCommands commands = null;
    String problem = null;
    try {
      commands = valkey.commands(ValkeyClients.user(namespace, name));
    } catch (IllegalStateException e) {
      problem = "this operator replica has no Valkey connection for CachePolicy " + namespace
          + "/" + name + ": it does not lead (the leader answers), or the policy's L2Reachable "
          + "condition is not True (kubectl describe cpol " + name + " -n " + namespace + ")";
    }
    return new Found(gate.read(client, policy, pods.get(), commands, problem),
        namespace + "/" + name, null);
  }
}
