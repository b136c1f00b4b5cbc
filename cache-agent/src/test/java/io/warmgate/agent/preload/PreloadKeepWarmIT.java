package io.warmgate.agent.preload;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.warmgate.agent.L2Mode;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.Test;

/**
 * Keep-warm of a done warm job on a redis-server. Half a minute of real L2 TTL, so it runs on one
 * mode only: its commands on a cluster (pipelined PTTL of value keys in many slots, the fenced job
 * update) are those of every batch of {@link PreloadWorkerIT}, which runs on both.
 */
class PreloadKeepWarmIT extends PreloadWorkerFixture {

  PreloadKeepWarmIT() {
    super(L2Mode.STANDALONE);
  }

  @Test
  void aDoneJobIsKeptWarmWhileTheOperatorAsksAndNoLongerOnceItStops() {
    Duration l2Ttl = Duration.ofSeconds(12); // keep-warm margin 3 s, passes 1.5 s apart
    Agent a = agent("pod-a", new SimpleMeterRegistry(), UnaryOperator.identity(), l2Ttl);
    List<String> list = ids(0, 30);
    openJob(list, Map.of("target", "30", "rate", "10000", "batchSize", "10",
        "keepWarmUntil", Long.toString(System.currentTimeMillis() + 600_000)));
    a.worker().start();
    awaitState("Done");
    int preloadCalls = a.origin().calls.size();
    long doneAt = System.currentTimeMillis();

    // Past two TTLs of the preloaded entries, every id is still in the namespace.
    await().atMost(Duration.ofSeconds(60)).until(() -> System.currentTimeMillis() - doneAt
        > 2 * l2Ttl.toMillis() && Long.parseLong(job().getOrDefault("keptWarm", "0")) >= 60);
    await().atMost(Duration.ofSeconds(5)).untilAsserted(() ->
        assertThat(idsInNamespace()).containsExactlyInAnyOrderElementsOf(list));
    Map<String, String> job = job();
    assertThat(job).containsEntry("state", "Done").containsEntry("filled", "30")
        .containsEntry("message", "loaded 30 of 30 ids, 0 errors");
    assertThat(job.get("keepWarm")).contains("of 30 ids that had less than 3 s of L2 TTL left");
    assertThat((long) a.origin().calls.size()).as("reloads in batches, not id by id")
        .isLessThanOrEqualTo(preloadCalls + Long.parseLong(job.get("keptWarm")) / 5 + 10);
    assertThat(raw.exists(keys.warmLockKey())).as("the lock is held only during a pass").isZero();

    // The operator stops asking (the canary was released): nothing is reloaded any more.
    raw.hset(keys.warmJobKey(), "keepWarmUntil", "0");
    await().atMost(Duration.ofSeconds(10)).until(() -> raw.exists(keys.warmLockKey()) == 0);
    int calls = a.origin().calls.size();
    await().during(Duration.ofSeconds(4)).atMost(Duration.ofSeconds(6))
        .until(() -> a.origin().calls.size() == calls);
  }
}
