package io.warmgate.operator.policy;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.client.utils.Serialization;
import io.warmgate.operator.model.CachePolicy;
import io.warmgate.operator.model.TargetKind;
import io.warmgate.operator.model.TimeoutAction;
import io.warmgate.operator.model.WarmupMode;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/** The examples users copy parse into the model and pass the operator's own checks. */
class ExamplesTest {

  static Path examples() {
    String repo = System.getProperty("warmgate.repo.dir");
    return (repo != null ? Path.of(repo) : Path.of("..")).resolve("examples");
  }

  static CachePolicy load(String file) throws IOException {
    try (InputStream in = Files.newInputStream(examples().resolve(file))) {
      return Serialization.unmarshal(in, CachePolicy.class);
    }
  }

  @Test
  void minimalExampleTakesTheDesignDefaults() throws IOException {
    CachePolicy policy = load("cachepolicy-minimal.yaml");

    assertThat(SpecChecks.problems(policy.getSpec())).isEmpty();
    assertThat(policy.getSpec().getTargetRef().getKind()).isEqualTo(TargetKind.Rollout);
    assertThat(policy.getSpec().getL1Ttl()).isEqualTo("60s");
    assertThat(policy.getSpec().getL2Ttl()).isEqualTo("4m");
    assertThat(policy.getSpec().getRefreshAhead()).isEqualTo("60s");
    assertThat(policy.getSpec().getLockTtl()).isEqualTo("5s");
    assertThat(policy.getSpec().getL2Timeout()).isEqualTo("20ms");
    assertThat(policy.getSpec().getMaxStaleness()).isEqualTo("5m");
    assertThat(policy.getSpec().getWarmup().getMode()).isEqualTo(WarmupMode.Organic);
    assertThat(policy.getSpec().getInjection().getEnabled()).isTrue();
  }

  @Test
  void fullExampleSetsEveryField() throws IOException {
    CachePolicy policy = load("cachepolicy-full.yaml");

    assertThat(SpecChecks.problems(policy.getSpec())).isEmpty();
    assertThat(policy.getSpec().getValkey().getPasswordSecretKeyRef().getName())
        .isEqualTo("valkey-auth");
    assertThat(policy.getSpec().getWarmup().getMode()).isEqualTo(WarmupMode.Preload);
    assertThat(policy.getSpec().getWarmup().getOnTimeout()).isEqualTo(TimeoutAction.Hold);
    assertThat(policy.getSpec().getWarmup().getMinHitRatio()).isEqualTo(90);
    assertThat(policy.getSpec().getInjection().getContainers()).containsExactly("app");
    assertThat(policy.getSpec().getKeySpaceVersion()).isEqualTo("2");
    assertThat(policy.getSpec().getChangeStream().getName()).isEqualTo("DealChanges");
    assertThat(policy.getSpec().getChangeStream().getHeartbeat()).isEqualTo("1s");
  }
}
