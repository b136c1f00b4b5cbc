package io.warmgate.operator.revision;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.ControllerRevision;
import io.fabric8.kubernetes.api.model.apps.ReplicaSet;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.fabric8.kubernetes.api.model.apps.StatefulSetStatus;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Reads a workload's {@link NewPods} from the API server: a Rollout's {@code currentPodHash} and
 * {@code stableRS}; a Deployment's newest ReplicaSet and the newest older one that still has
 * pods; for a Deployment Flagger drives (a Deployment {@code <name>-primary} owned by a Flagger
 * {@code Canary}), the target's pods as the new ones and the primary's as the replaced ones; a
 * StatefulSet's {@code status.updateRevision} and {@code status.currentRevision}.
 *
 * <p>Deployments and StatefulSets are read by name when asked, never cached: the operator's
 * informers keep only their identity.
 */
public final class Revisions {

  /** The annotation the Deployment controller numbers a Deployment's ReplicaSets with. */
  public static final String REVISION = "deployment.kubernetes.io/revision";
  /** The suffix of the Deployment Flagger creates for a Canary's stable pods. */
  public static final String PRIMARY_SUFFIX = "-primary";

  private static final ObjectMapper JSON = new ObjectMapper();

  private Revisions() {}

  /** The new pods of {@code rollout}, as its status names them. */
  public static NewPods ofRollout(KubernetesClient client, GenericKubernetesResource rollout) {
    JsonNode status = JSON.valueToTree(rollout.getAdditionalProperties().get("status"));
    String current = text(status.get("currentPodHash"));
    String stable = text(status.get("stableRS"));
    String namespace = rollout.getMetadata().getNamespace();
    Instant since = null;
    if (current != null) {
      since = client.apps().replicaSets().inNamespace(namespace)
          .withLabel(NewPods.ROLLOUT_LABEL, current).list().getItems().stream()
          .filter(rs -> ownedBy(rs, rollout)).map(Revisions::created)
          .filter(t -> t != null).min(Comparator.naturalOrder()).orElse(null);
    }
    return new NewPods(namespace, "Rollout " + namespace + "/" + rollout.getMetadata().getName(),
        current, stable, since, NewPods.ROLLOUT_LABEL, false);
  }

  /**
   * The new pods of Deployment {@code namespace/name}; empty when it does not exist.
   */
  public static Optional<NewPods> ofDeployment(KubernetesClient client, String namespace,
      String name) {
    Deployment target = client.apps().deployments().inNamespace(namespace).withName(name).get();
    if (target == null) {
      return Optional.empty();
    }
    List<ReplicaSet> owned = replicaSets(client, target);
    return Optional.of(flaggerPrimary(client, namespace, name)
        .map(primary -> flagger(target, owned, primary, replicaSets(client, primary)))
        .orElseGet(() -> deployment(target, owned)));
  }

  /**
   * The new pods of StatefulSet {@code namespace/name}; empty when it does not exist. The new
   * pods' ControllerRevision is read for its creation time (the start of maxWait).
   */
  public static Optional<NewPods> ofStatefulSet(KubernetesClient client, String namespace,
      String name) {
    StatefulSet target = client.apps().statefulSets().inNamespace(namespace).withName(name).get();
    if (target == null) {
      return Optional.empty();
    }
    String update = target.getStatus() == null ? null : target.getStatus().getUpdateRevision();
    ControllerRevision revision = update == null || update.isEmpty() ? null
        : client.apps().controllerRevisions().inNamespace(namespace).withName(update).get();
    return Optional.of(statefulSet(target, revision));
  }

  /**
   * A StatefulSet: pods labelled {@value NewPods#STATEFULSET_LABEL} with its
   * {@code status.updateRevision} are new, those with its {@code status.currentRevision} are the
   * ones they replace; the two are equal once a rolling update is done. {@code revision} is the
   * update revision's ControllerRevision, or null when it was not found.
   */
  static NewPods statefulSet(StatefulSet target, ControllerRevision revision) {
    StatefulSetStatus status = target.getStatus();
    String update = status == null ? null : blankToNull(status.getUpdateRevision());
    String current = status == null ? null : blankToNull(status.getCurrentRevision());
    Instant since = revision != null && update != null
        && update.equals(revision.getMetadata().getName()) ? created(revision) : null;
    String namespace = target.getMetadata().getNamespace();
    return new NewPods(namespace, "StatefulSet " + namespace + "/"
        + target.getMetadata().getName(), update, current, since, NewPods.STATEFULSET_LABEL,
        false);
  }

  /**
   * A plain Deployment: its newest ReplicaSet's pods are new, those of the newest older one that
   * still has pods are the ones they replace.
   */
  static NewPods deployment(Deployment target, List<ReplicaSet> owned) {
    List<ReplicaSet> byRevision = owned.stream()
        .sorted(Comparator.comparingLong(Revisions::revision).reversed()).toList();
    ReplicaSet newest = byRevision.isEmpty() ? null : byRevision.get(0);
    ReplicaSet older = byRevision.stream().skip(1).filter(Revisions::hasPods).findFirst()
        .orElse(null);
    String namespace = target.getMetadata().getNamespace();
    return new NewPods(namespace, "Deployment " + namespace + "/" + target.getMetadata().getName(),
        hash(newest), hash(older), newest == null ? null : created(newest),
        NewPods.DEPLOYMENT_LABEL, false);
  }

  /**
   * A Deployment Flagger drives: its pods are the canary while Flagger has scaled it up, those of
   * {@code primary} are the stable ones.
   */
  static NewPods flagger(Deployment target, List<ReplicaSet> owned, Deployment primary,
      List<ReplicaSet> primaryOwned) {
    String namespace = target.getMetadata().getNamespace();
    ReplicaSet canary = newest(owned);
    boolean scaledUp = target.getSpec() != null && target.getSpec().getReplicas() != null
        && target.getSpec().getReplicas() > 0;
    return new NewPods(namespace, "Deployment " + namespace + "/" + target.getMetadata().getName()
        + " (Flagger canary of " + primary.getMetadata().getName() + ")",
        scaledUp ? hash(canary) : null, hash(newest(primaryOwned)),
        scaledUp && canary != null ? created(canary) : null, NewPods.DEPLOYMENT_LABEL, true);
  }

  private static List<ReplicaSet> replicaSets(KubernetesClient client, Deployment owner) {
    Map<String, String> selector = owner.getSpec() == null || owner.getSpec().getSelector() == null
        ? null : owner.getSpec().getSelector().getMatchLabels();
    var all = client.apps().replicaSets().inNamespace(owner.getMetadata().getNamespace());
    return (selector == null || selector.isEmpty() ? all.list() : all.withLabels(selector).list())
        .getItems().stream().filter(rs -> ownedBy(rs, owner)).toList();
  }

  private static ReplicaSet newest(List<ReplicaSet> owned) {
    return owned.stream().max(Comparator.comparingLong(Revisions::revision)).orElse(null);
  }

  /**
   * Whether Flagger drives Deployment {@code namespace/name}: a Deployment {@code <name>-primary}
   * owned by a Flagger Canary exists.
   */
  public static boolean drivenByFlagger(KubernetesClient client, String namespace, String name) {
    return flaggerPrimary(client, namespace, name).isPresent();
  }

  /** The Deployment {@code <name>-primary} when a Flagger Canary owns it. */
  private static Optional<Deployment> flaggerPrimary(KubernetesClient client, String namespace,
      String name) {
    return Optional.ofNullable(client.apps().deployments().inNamespace(namespace)
        .withName(name + PRIMARY_SUFFIX).get()).filter(Revisions::ownedByFlaggerCanary);
  }

  private static boolean ownedByFlaggerCanary(Deployment primary) {
    List<OwnerReference> owners = primary.getMetadata().getOwnerReferences();
    return owners != null && owners.stream().anyMatch(o -> "Canary".equals(o.getKind())
        && o.getApiVersion() != null && o.getApiVersion().startsWith("flagger.app/"));
  }

  private static boolean ownedBy(HasMetadata child, HasMetadata owner) {
    List<OwnerReference> owners = child.getMetadata().getOwnerReferences();
    return owners != null && owners.stream()
        .anyMatch(o -> o.getUid() != null && o.getUid().equals(owner.getMetadata().getUid()));
  }

  private static boolean hasPods(ReplicaSet rs) {
    Integer specified = rs.getSpec() == null ? null : rs.getSpec().getReplicas();
    Integer running = rs.getStatus() == null ? null : rs.getStatus().getReplicas();
    return specified != null && specified > 0 || running != null && running > 0;
  }

  private static long revision(ReplicaSet rs) {
    Map<String, String> annotations = rs.getMetadata().getAnnotations();
    String value = annotations == null ? null : annotations.get(REVISION);
    try {
      return value == null ? -1 : Long.parseLong(value);
    } catch (NumberFormatException e) {
      return -1;
    }
  }

  private static String hash(ReplicaSet rs) {
    Map<String, String> labels = rs == null ? null : rs.getMetadata().getLabels();
    return labels == null ? null : labels.get(NewPods.DEPLOYMENT_LABEL);
  }

  private static Instant created(HasMetadata resource) {
    String text = resource.getMetadata().getCreationTimestamp();
    try {
      return text == null ? null : Instant.parse(text);
    } catch (DateTimeParseException e) {
      return null;
    }
  }

  private static String blankToNull(String value) {
    return value == null || value.isEmpty() ? null : value;
  }

  private static String text(JsonNode node) {
    return node == null || !node.isTextual() || node.asText().isEmpty() ? null : node.asText();
  }
}
