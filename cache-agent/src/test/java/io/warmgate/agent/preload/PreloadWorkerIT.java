package io.warmgate.agent.preload;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.lettuce.core.SetArgs;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.warmgate.agent.Meters;
import io.warmgate.agent.L2Mode;
import io.warmgate.agent.l2.KeySpace;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The preload worker on a redis-server and a Redis cluster: filling, rate, lock, takeover, bad jobs. */
@ParameterizedClass
@EnumSource(L2Mode.class)
class PreloadWorkerIT extends PreloadWorkerFixture {

  PreloadWorkerIT(L2Mode mode) {
    super(mode);
  }

  @Test
  void fillsExactlyTheJobsIdsIntoTheNamespaceInBatchesAndReportsProgress() {
    Agent a = agent("pod-a");
    // 250 hot ids, 10 of which the origin does not know; the job loads the first 200.
    List<String> list = new ArrayList<>(ids(0, 240));
    list.addAll(5, ids(5_000, 5_010));
    openJob(list, Map.of("target", "200", "rate", "10000", "batchSize", "50"));
    long before = System.currentTimeMillis();
    a.worker().start();

    awaitState("Done");
    Map<String, String> job = job();
    assertThat(job).containsEntry("filled", "200").containsEntry("errors", "0")
        .containsEntry("cursor", "200").containsEntry("target", "200")
        .containsEntry("owner", "pod-a")
        .containsEntry("message", "loaded 200 of 200 ids, 0 errors");
    assertThat(Long.parseLong(job.get("updatedAt"))).isBetween(before, System.currentTimeMillis());
    assertThat(a.origin().data.batches()).hasSize(4).allSatisfy(b -> assertThat(b).hasSize(50));
    assertThat(a.origin().loadedIds()).containsExactlyInAnyOrderElementsOf(list.subList(0, 200));
    // Found and not-found ids alike are in the namespace; nothing else is.
    await().atMost(Duration.ofSeconds(5)).untilAsserted(() ->
        assertThat(idsInNamespace()).containsExactlyInAnyOrderElementsOf(list.subList(0, 200)));
    assertThat(raw.exists(keys.warmLockKey())).isZero();
    assertThat(raw.pttl(keys.warmJobKey())).isBetween(3_500_000L, 3_600_000L);
    assertThat(raw.pttl(keys.warmIdsKey())).isBetween(3_500_000L, 3_600_000L);
  }

  @Test
  void neverLoadsFasterThanTheJobsRate() {
    Agent a = agent("pod-a");
    int rate = 200;
    int batch = 20;
    openJob(ids(0, 300), Map.of("target", "300", "rate", Integer.toString(rate),
        "batchSize", Integer.toString(batch)));
    a.worker().start();
    awaitState("Done");

    List<long[]> calls = a.origin().calls;
    assertThat(calls).hasSize(15);
    long first = calls.get(0)[0];
    long loaded = 0;
    for (long[] call : calls) {
      loaded += call[1];
      double seconds = (call[0] - first) / 1e9;
      // rate × elapsed, plus the batch just granted, plus two batches of slack for the delay
      // between a grant and its origin call (loose on purpose; never a lower bound on speed).
      assertThat((double) loaded).isLessThanOrEqualTo(rate * seconds + 3 * batch);
    }
    assertThat(loaded).isEqualTo(300);
  }

  @Test
  void oneOfTwoAgentsWinsAndTheOtherResumesAtTheCursorWhenTheWinnerStops() {
    Agent a = agent("pod-a");
    Agent b = agent("pod-b");
    List<String> list = ids(0, 400);
    openJob(list, Map.of("target", "400", "rate", "100", "batchSize", "20"));
    a.worker().start();
    b.worker().start();

    await().atMost(Duration.ofSeconds(10))
        .until(() -> Long.parseLong(job().getOrDefault("filled", "0")) >= 100);
    Agent winner = "pod-a".equals(job().get("owner")) ? a : b;
    Agent other = winner == a ? b : a;
    assertThat(other.origin().calls).as("the agent without the lock loads nothing").isEmpty();

    winner.worker().close(); // mid-job: finishes its batch, records it, releases the lock
    int cursor = Integer.parseInt(job().get("cursor"));
    assertThat(cursor).isBetween(100, 399);
    assertThat(winner.origin().loadedIds()).containsExactlyElementsOf(list.subList(0, cursor));

    awaitState("Done");
    assertThat(job()).containsEntry("owner", other.pod()).containsEntry("filled", "400")
        .containsEntry("errors", "0").containsEntry("cursor", "400");
    assertThat(other.origin().loadedIds()).containsExactlyElementsOf(list.subList(cursor, 400));
  }

  @Test
  void aJobWhoseHolderDiedIsTakenOverWhenItsLockLapsesFromTheRecordedCursor() {
    Agent b = agent("pod-b");
    List<String> list = ids(0, 100);
    openJob(list, Map.of("target", "100", "rate", "10000", "batchSize", "10", "state", "Running",
        "owner", "pod-dead", "filled", "38", "errors", "2", "cursor", "40"));
    raw.set(keys.warmLockKey(), "pod-dead/token", SetArgs.Builder.px(500));
    b.worker().start();

    awaitState("Done");
    assertThat(job()).containsEntry("owner", "pod-b").containsEntry("filled", "98")
        .containsEntry("errors", "2").containsEntry("cursor", "100");
    assertThat(b.origin().loadedIds()).containsExactlyElementsOf(list.subList(40, 100));
  }

  @ParameterizedTest(name = "{0}={1}")
  @CsvSource({"rate, fast", "batchSize, 0", "target, -5", "cursor, abc", "state, Paused"})
  void aMalformedJobFailsNamingTheFieldAndTheWorkerCarriesOn(String field, String value) {
    Agent a = agent("pod-a");
    Map<String, String> fields = new HashMap<>(Map.of("target", "30", "rate", "10000",
        "batchSize", "10"));
    fields.put(field, value);
    openJob(ids(0, 30), fields);
    a.worker().start();

    awaitState("Failed");
    assertThat(job().get("message")).startsWith("warm job field '" + field + "' is '" + value + "'");
    assertThat(job()).containsEntry("owner", "pod-a");
    assertThat(a.origin().calls).isEmpty();

    // The operator corrects the field and reopens the job: the same worker takes it.
    Map<String, String> fixed = new HashMap<>(Map.of("rate", "10000", "batchSize", "10",
        "target", "30", "cursor", "0"));
    fixed.put("state", "Open");
    raw.hset(keys.warmJobKey(), fixed);
    awaitState("Done");
    assertThat(job()).containsEntry("filled", "30");
  }

  @Test
  void aJobWithoutItsIdListFails() {
    Agent a = agent("pod-a");
    raw.hset(keys.warmJobKey(), Map.of("state", "Open", "target", "10", "rate", "5",
        "batchSize", "5"));
    a.worker().start();
    awaitState("Failed");
    assertThat(job().get("message")).contains(keys.warmIdsKey()).contains("target is 10");
  }

  @Test
  void anOriginOutageHoldsTheBatchAndRetriesTheSameIdsUntilTheJobCompletes() {
    SimpleMeterRegistry meters = new SimpleMeterRegistry();
    Agent a = agent("pod-a", meters, w -> w.originBreakerWait(Duration.ofMillis(300)));
    List<String> list = ids(0, 40);
    openJob(list.subList(0, 10), Map.of("target", "40", "rate", "10000", "batchSize", "10"));
    raw.rpush(keys.warmIdsKey(), list.subList(10, 40).toArray(String[]::new));
    a.origin().data.failWith(new IllegalStateException("Spanner is down"));
    a.worker().start();

    // Failures are instant once the origin breaker is open; the worker still does not move on.
    await().atMost(Duration.ofSeconds(20)).until(() ->
        Meters.count(meters, "warmgate.origin.skipped") >= 2 && a.origin().calls.size() >= 6);
    Map<String, String> waiting = job();
    assertThat(waiting).containsEntry("state", "Running").containsEntry("cursor", "0")
        .containsEntry("filled", "0").containsEntry("errors", "0");
    assertThat(waiting.get("message")).startsWith("waiting for the origin: ")
        .contains("Spanner is down").contains("retrying the 10 ids at cursor 0 in");
    List<List<String>> failed = a.origin().data.batches();
    assertThat(failed).as("only the first batch is asked for, again and again")
        .allSatisfy(batch -> assertThat(batch).containsExactlyElementsOf(list.subList(0, 10)));

    a.origin().data.heal();
    awaitState("Done");
    assertThat(job()).containsEntry("filled", "40").containsEntry("errors", "0")
        .containsEntry("cursor", "40").containsEntry("message", "loaded 40 of 40 ids, 0 errors");
    await().atMost(Duration.ofSeconds(5)).untilAsserted(() ->
        assertThat(idsInNamespace()).containsExactlyInAnyOrderElementsOf(list));
    List<List<String>> after = a.origin().data.batches().subList(failed.size(),
        a.origin().data.batches().size());
    assertThat(after.stream().flatMap(List::stream).filter(id -> !list.subList(0, 10).contains(id)))
        .as("every other id loaded once, after the origin came back")
        .containsExactlyInAnyOrderElementsOf(list.subList(10, 40));
  }

  @Test
  void whileL2IsDownTheOriginIsNotReadForBatchesThatCannotBeWritten() {
    Agent a = agent("pod-a");
    openJob(ids(0, 30), Map.of("target", "30", "rate", "10000", "batchSize", "10"));
    a.origin().data.block();
    a.worker().start();
    await().atMost(Duration.ofSeconds(10)).until(() -> a.origin().calls.size() == 1);
    valkey.stop(); // while the first batch is at the origin: its writes fail
    try {
      a.origin().data.release();
      // Before, the batch was read from the origin twice more, and the next ones three times each.
      await().during(Duration.ofSeconds(1)).atMost(Duration.ofSeconds(3))
          .until(() -> a.origin().calls.size() == 1);
    } finally {
      valkey.start(); // empty: the job is gone, and the worker stops waiting for it
    }
    await().atMost(Duration.ofSeconds(20)).ignoreExceptions().untilAsserted(() ->
        assertThat(raw.exists(keys.warmLockKey())).isZero());
    assertThat(a.origin().calls).hasSize(1);
  }

  @Test
  void finishedJobsAndJobsOfOtherNamespacesAreLeftAlone() {
    Agent a = agent("pod-a");
    openJob(ids(0, 10), Map.of("target", "10", "rate", "10000", "batchSize", "10",
        "state", "Done"));
    KeySpace other = new KeySpace("deals", "ffffffffffff");
    raw.rpush(other.warmIdsKey(), "deal-1");
    raw.hset(other.warmJobKey(), Map.of("state", "Open", "target", "1", "rate", "5",
        "batchSize", "1"));
    a.worker().start();

    // Polls happen every 50 ms; over a second nothing may change.
    await().during(Duration.ofSeconds(1)).atMost(Duration.ofSeconds(2)).until(() ->
        a.origin().calls.isEmpty() && "Done".equals(job().get("state"))
            && "Open".equals(raw.hget(other.warmJobKey(), "state")));
    assertThat(new HashSet<>(raw.keys("*lock*"))).isEmpty();
  }
}
