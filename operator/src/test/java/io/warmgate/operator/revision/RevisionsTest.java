package io.warmgate.operator.revision;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.DeploymentBuilder;
import io.fabric8.kubernetes.api.model.apps.ReplicaSet;
import io.fabric8.kubernetes.api.model.apps.ReplicaSetBuilder;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Telling a Deployment's new pods from the ones they replace, plain and under Flagger. */
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

  @Test
  void flaggerCanaryScaledToZeroHasNoNewPods() {
    NewPods pods = Revisions.flagger(deployment("app", 0),
        List.of(rs("c1", 5, 0, "2026-01-01T05:00:00Z")), deployment("app-primary", 4),
        List.of(rs("p1", 2, 4, "2026-01-01T01:00:00Z")));
    assertThat(pods.newPodHash()).isNull();
    assertThat(pods.inProgress()).isFalse();
  }
}
