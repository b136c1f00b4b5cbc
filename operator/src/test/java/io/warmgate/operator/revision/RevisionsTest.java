package io.warmgate.operator.revision;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.apps.ControllerRevision;
import io.fabric8.kubernetes.api.model.apps.ControllerRevisionBuilder;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.DeploymentBuilder;
import io.fabric8.kubernetes.api.model.apps.ReplicaSet;
import io.fabric8.kubernetes.api.model.apps.ReplicaSetBuilder;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.fabric8.kubernetes.api.model.apps.StatefulSetBuilder;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Telling a workload's new pods from the ones they replace: a Deployment's, plain and under
 * Flagger, and a StatefulSet's.
 */
class RevisionsTest {

  static Deployment deployment(String name, int replicas) {
    return new DeploymentBuilder().withNewMetadata().withName(name).withNamespace("ns")
        .withUid(name + "-uid").endMetadata().withNewSpec().withReplicas(replicas).endSpec()
        .build();
  }

  static ReplicaSet rs(String hash, int revision, int replicas, String created) {
    return new ReplicaSetBuilder().withNewMetadata().withName("app-" + hash).withNamespace("ns")
        .addToLabels("pod-template-hash", hash)
        .addToAnnotations(Revisions.REVISION, String.valueOf(revision))
        .withCreationTimestamp(created).endMetadata()
        .withNewSpec().withReplicas(replicas).endSpec().build();
  }

  @Test
  void newestReplicaSetIsNewAndTheNewestOlderOneWithPodsIsStable() {
    NewPods pods = Revisions.deployment(deployment("app", 4), List.of(
        rs("old1", 1, 0, "2026-01-01T00:00:00Z"), rs("old2", 2, 3, "2026-01-01T01:00:00Z"),
        rs("new3", 3, 1, "2026-01-01T02:00:00Z")));
    assertThat(pods.newPodHash()).isEqualTo("new3");
    assertThat(pods.stablePodHash()).isEqualTo("old2");
    assertThat(pods.since()).isEqualTo(Instant.parse("2026-01-01T02:00:00Z"));
    assertThat(pods.inProgress()).isTrue();
    assertThat(pods.podHashLabel()).isEqualTo("pod-template-hash");
  }

  @Test
  void revisionsCompareAsNumbersNotText() {
    NewPods pods = Revisions.deployment(deployment("app", 2), List.of(
        rs("r9", 9, 2, "2026-01-01T00:00:00Z"), rs("r10", 10, 1, "2026-01-01T01:00:00Z")));
    assertThat(pods.newPodHash()).isEqualTo("r10");
    assertThat(pods.stablePodHash()).isEqualTo("r9");
  }

  @Test
  void finishedRolloutHasNoNewPods() {
    NewPods pods = Revisions.deployment(deployment("app", 2), List.of(
        rs("old", 1, 0, "2026-01-01T00:00:00Z"), rs("cur", 2, 2, "2026-01-01T01:00:00Z")));
    assertThat(pods.newPodHash()).isEqualTo("cur");
    assertThat(pods.stablePodHash()).isNull();
    assertThat(pods.inProgress()).isFalse();
  }

  @Test
  void flaggerCanaryPodsAreNewAndPrimaryPodsAreStable() {
    NewPods pods = Revisions.flagger(deployment("app", 1),
        List.of(rs("c1", 5, 1, "2026-01-01T05:00:00Z")), deployment("app-primary", 4),
        List.of(rs("p0", 1, 0, "2026-01-01T00:00:00Z"), rs("p1", 2, 4, "2026-01-01T01:00:00Z")));
    assertThat(pods.newPodHash()).isEqualTo("c1");
    assertThat(pods.stablePodHash()).isEqualTo("p1");
    assertThat(pods.flagger()).isTrue();
    assertThat(pods.workload()).contains("Flagger canary of app-primary");
    assertThat(pods.inProgress()).isTrue();
  }

  static StatefulSet statefulSet(String current, String update) {
    return new StatefulSetBuilder().withNewMetadata().withName("db").withNamespace("ns")
        .withUid("db-uid").endMetadata().withNewSpec().withReplicas(3).endSpec()
        .withNewStatus().withCurrentRevision(current).withUpdateRevision(update).endStatus()
        .build();
  }

  static ControllerRevision revision(String name, String created) {
    return new ControllerRevisionBuilder().withNewMetadata().withName(name).withNamespace("ns")
        .withCreationTimestamp(created).endMetadata().withRevision(2L).build();
  }

  @Test
  void statefulSetUpdateRevisionIsNewAndCurrentRevisionIsStable() {
    NewPods pods = Revisions.statefulSet(statefulSet("db-5d8f7c9b6", "db-7b9c8d6f5"),
        revision("db-7b9c8d6f5", "2026-01-01T03:00:00Z"));
    assertThat(pods.newPodHash()).isEqualTo("db-7b9c8d6f5");
    assertThat(pods.stablePodHash()).isEqualTo("db-5d8f7c9b6");
    assertThat(pods.since()).isEqualTo(Instant.parse("2026-01-01T03:00:00Z"));
    assertThat(pods.inProgress()).isTrue();
    assertThat(pods.podHashLabel()).isEqualTo("controller-revision-hash");
    assertThat(pods.workload()).isEqualTo("StatefulSet ns/db");
    assertThat(pods.flagger()).isFalse();
  }

  @Test
  void statefulSetWhoseRevisionsAgreeHasNoReleaseInProgress() {
    NewPods pods = Revisions.statefulSet(statefulSet("db-7b9c8d6f5", "db-7b9c8d6f5"),
        revision("db-7b9c8d6f5", "2026-01-01T03:00:00Z"));
    assertThat(pods.newPodHash()).isEqualTo("db-7b9c8d6f5");
    assertThat(pods.inProgress()).isFalse();
  }

  @Test
  void statefulSetWithoutStatusOrRevisionHasNoNewPodsAndNoStart() {
    StatefulSet fresh = new StatefulSetBuilder(statefulSet(null, null)).withStatus(null).build();
    NewPods none = Revisions.statefulSet(fresh, null);
    assertThat(none.newPodHash()).isNull();
    assertThat(none.stablePodHash()).isNull();
    assertThat(none.inProgress()).isFalse();

    NewPods other = Revisions.statefulSet(statefulSet("db-a", "db-b"),
        revision("db-c", "2026-01-01T03:00:00Z"));
    assertThat(other.since()).as("a ControllerRevision other than the update revision").isNull();
    NewPods empty = Revisions.statefulSet(statefulSet("", ""), null);
    assertThat(empty.newPodHash()).isNull();
  }

  @Test
  void flaggerCanaryScaledToZeroHasNoNewPods() {
    NewPods pods = Revisions.flagger(deployment("app", 0),
        List.of(rs("c1", 5, 0, "2026-01-01T05:00:00Z")), deployment("app-primary", 4),
        List.of(rs("p1", 2, 4, "2026-01-01T01:00:00Z")));
    assertThat(pods.newPodHash()).isNull();
    assertThat(pods.inProgress()).isFalse();
  }
}
