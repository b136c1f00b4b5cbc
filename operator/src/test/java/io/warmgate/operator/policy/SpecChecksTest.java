package io.warmgate.operator.policy;

import static org.assertj.core.api.Assertions.assertThat;

import io.warmgate.operator.model.CachePolicySpec;
import io.warmgate.operator.model.ChangeStreamSpec;
import io.warmgate.operator.model.TargetKind;
import io.warmgate.operator.model.TargetRef;
import io.warmgate.operator.model.ValkeySpec;
import io.warmgate.operator.model.WarmupMode;
import java.util.List;
import java.util.function.Consumer;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class SpecChecksTest {

  static CachePolicySpec minimal() {
    CachePolicySpec spec = new CachePolicySpec();
    spec.setTargetRef(new TargetRef(TargetKind.Deployment, "app"));
    spec.setCacheName("deals");
    ValkeySpec valkey = new ValkeySpec();
    valkey.setAddresses(List.of("valkey:6379"));
    spec.setValkey(valkey);
    return spec;
  }

  @Test
  void defaultsAreValid() {
    assertThat(SpecChecks.problems(minimal())).isEmpty();
  }

  @Test
  void aWellFormedKeySpaceVersionIsValid() {
    CachePolicySpec spec = minimal();
    spec.setKeySpaceVersion("2026-03-cents_v" + "9".repeat(48));
    assertThat(spec.getKeySpaceVersion()).hasSize(63);
    assertThat(SpecChecks.problems(spec)).isEmpty();
  }

  @Test
  void aChangeStreamWithTheHeartbeatBoundsIsValid() {
    CachePolicySpec spec = minimal();
    spec.setChangeStream(new ChangeStreamSpec("Deal_Changes2", ChangeStreamSpec.MIN_HEARTBEAT));
    assertThat(SpecChecks.problems(spec)).isEmpty();
    spec.getChangeStream().setHeartbeat(ChangeStreamSpec.MAX_HEARTBEAT);
    assertThat(SpecChecks.problems(spec)).isEmpty();
  }

  static Stream<Arguments> invalid() {
    return Stream.of(
        Arguments.of("spec.l1Ttl", (Consumer<CachePolicySpec>) s -> s.setL1Ttl("60")),
        Arguments.of("spec.changeStream.name", (Consumer<CachePolicySpec>) s ->
            s.setChangeStream(new ChangeStreamSpec("deal-changes", "1s"))),
        Arguments.of("spec.changeStream.name", (Consumer<CachePolicySpec>) s ->
            s.setChangeStream(new ChangeStreamSpec(null, "1s"))),
        Arguments.of("spec.changeStream.heartbeat", (Consumer<CachePolicySpec>) s ->
            s.setChangeStream(new ChangeStreamSpec("DealChanges", "50ms"))),
        Arguments.of("spec.changeStream.heartbeat", (Consumer<CachePolicySpec>) s ->
            s.setChangeStream(new ChangeStreamSpec("DealChanges", "1 s"))),
        Arguments.of("spec.l2Ttl", (Consumer<CachePolicySpec>) s -> s.setL2Ttl("0s")),
        Arguments.of("spec.maxStaleness",
            (Consumer<CachePolicySpec>) s -> s.setL2Ttl("4m30s")),
        Arguments.of("spec.refreshAhead", (Consumer<CachePolicySpec>) s -> {
          s.setRefreshAhead("5m");
          s.setMaxStaleness("1h");
        }),
        Arguments.of("spec.lockTtl", (Consumer<CachePolicySpec>) s -> s.setLockTtl("60s")),
        Arguments.of("spec.negativeTtl", (Consumer<CachePolicySpec>) s -> s.setNegativeTtl("5m")),
        Arguments.of("spec.staleIfError",
            (Consumer<CachePolicySpec>) s -> s.setStaleIfError("forever")),
        Arguments.of("spec.valkey.addresses",
            (Consumer<CachePolicySpec>) s -> s.getValkey().setAddresses(List.of("valkey:99999"))),
        Arguments.of("spec.valkey.addresses",
            (Consumer<CachePolicySpec>) s -> s.getValkey().setAddresses(List.of())),
        Arguments.of("spec.valkey.username",
            (Consumer<CachePolicySpec>) s -> s.getValkey().setUsername("deals")),
        Arguments.of("spec.warmup.minCoverage",
            (Consumer<CachePolicySpec>) s -> s.getWarmup().setMinCoverage(120)),
        Arguments.of("spec.warmup.minHitRatio",
            (Consumer<CachePolicySpec>) s -> s.getWarmup().setMinHitRatio(50)),
        Arguments.of("spec.targetRef", (Consumer<CachePolicySpec>) s -> s.setTargetRef(null)),
        Arguments.of("spec.cacheName", (Consumer<CachePolicySpec>) s -> s.setCacheName(" ")),
        Arguments.of("spec.keySpaceVersion",
            (Consumer<CachePolicySpec>) s -> s.setKeySpaceVersion("v 2")),
        Arguments.of("spec.keySpaceVersion",
            (Consumer<CachePolicySpec>) s -> s.setKeySpaceVersion("")),
        Arguments.of("spec.keySpaceVersion",
            (Consumer<CachePolicySpec>) s -> s.setKeySpaceVersion("v".repeat(64))));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("invalid")
  void namesTheField(String field, Consumer<CachePolicySpec> breakIt) {
    CachePolicySpec spec = minimal();
    breakIt.accept(spec);

    assertThat(SpecChecks.problems(spec)).singleElement().asString().contains(field);
  }

  /** Issue 13 items 2 and 9: policies that can never warm a canary, as the CEL rules see them. */
  @Test
  void policiesThatCanNeverWarmNameTheFieldAndTheFix() {
    assertThat(SpecChecks.cannotWork(minimal())).isEmpty();

    CachePolicySpec slow = minimal();
    slow.getWarmup().setMode(WarmupMode.Preload);
    slow.getWarmup().setHotSetSize(50_000);
    slow.getWarmup().setPreloadRate(100);
    slow.getWarmup().setMaxWait("30m");
    assertThat(SpecChecks.cannotWork(slow)).singleElement().asString()
        .contains("hotSetSize 50,000 at warmup.preloadRate 100/s takes 400 s")
        .contains("longer than spec.l2Ttl (4m)").contains("raise preloadRate or l2Ttl");
    slow.getWarmup().setMode(WarmupMode.Organic);
    assertThat(SpecChecks.cannotWork(slow)).isEmpty();

    CachePolicySpec impatient = minimal();
    impatient.getWarmup().setMode(WarmupMode.Preload);
    impatient.getWarmup().setPreloadRate(100);
    impatient.getWarmup().setMaxWait("1m");
    assertThat(SpecChecks.cannotWork(impatient)).singleElement().asString()
        .contains("takes 80 s").contains("longer than spec.warmup.maxWait (1m)");

    CachePolicySpec big = minimal();
    big.getWarmup().setHotSetSize(1_000_000);
    assertThat(SpecChecks.cannotWork(big)).singleElement().asString()
        .contains("hotSetSize 1,000,000 is more than the 50,000 hot ids an agent records");

    CachePolicySpec twice = minimal();
    twice.getValkey().setAddresses(List.of("valkey:6379", "valkey:6379"));
    assertThat(SpecChecks.cannotWork(twice)).singleElement().asString()
        .contains("spec.valkey.addresses lists valkey:6379 more than once");
  }

  @Test
  void preloadSecondsRoundUp() {
    assertThat(SpecChecks.preloadSeconds(10_000, 80, 500)).isEqualTo(16);
    assertThat(SpecChecks.preloadSeconds(10_001, 80, 500)).isEqualTo(17);
    assertThat(SpecChecks.preloadSeconds(10_000, 0, 500)).isZero();
  }

  @Test
  void missingSpecIsOneProblem() {
    assertThat(SpecChecks.problems(null)).singleElement().asString().contains("spec is missing");
  }
}
