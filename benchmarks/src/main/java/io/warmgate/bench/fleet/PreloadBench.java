package io.warmgate.bench.fleet;

import io.warmgate.example.deal.Deal;
import io.warmgate.example.deal.DealOrigin;
import io.warmgate.example.deal.DealSeeder;
import io.warmgate.spanner.SpannerOrigin;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * Fills a namespace with the same emulator three ways: the preload worker through a warm job (at
 * the operator's default rate cap and uncapped), one {@code get} per key as organic traffic would,
 * and the emulator's raw batched read rate as the ceiling.
 */
final class PreloadBench {

  /** Ids loaded per second in one way of filling. */
  record Row(String way, long ids, double seconds) {
    double idsPerSecond() {
      return ids / seconds;
    }
  }

  /** No cap: a rate far above what the emulator serves, so the worker runs as fast as it can. */
  static final int UNCAPPED_RATE = 1_000_000;

  private PreloadBench() {}

  static List<Row> run(FleetFixture fixture, FleetParams p) throws InterruptedException {
    List<String> ids = new ArrayList<>(p.preloadIds());
    for (int n = 1; n <= p.preloadIds(); n++) {
      ids.add(DealSeeder.dealId(n));
    }
    List<Row> rows = new ArrayList<>();
    rows.add(preload(fixture, ids, Preloader.RATE,
        "preload worker, warm job at the default cap (" + Preloader.RATE + " ids/s)"));
    rows.add(preload(fixture, ids, UNCAPPED_RATE, "preload worker, uncapped"));
    rows.add(perKey(fixture, ids.subList(0, Math.min(ids.size(), p.perKeyIds()))));
    rows.add(raw(fixture, ids, Preloader.RATE));
    rows.add(raw(fixture, ids, UNCAPPED_RATE));
    return rows;
  }

  private static Row preload(FleetFixture fixture, List<String> ids, int rate, String way)
      throws InterruptedException {
    fixture.reset();
    ManualClock clock = new ManualClock();
    FleetAgent canary = fixture.agents("preload", 1, true, clock, b -> b).get(0);
    try (Preloader preloader = new Preloader(fixture.redis().uri(), clock)) {
      preloader.seedHotSet(canary.cache(), ids);
      Preloader.Outcome outcome = preloader.preload(canary.cache(), ids.size(), rate,
          Duration.ofMinutes(10));
      if (outcome.filled() != ids.size()) {
        throw new IllegalStateException(way + " filled " + outcome.filled() + " of " + ids.size()
            + " ids (" + outcome.errors() + " errors)");
      }
      return new Row(way, outcome.filled(), outcome.seconds());
    } finally {
      canary.close();
    }
  }

  private static Row perKey(FleetFixture fixture, List<String> ids) {
    fixture.reset();
    FleetAgent agent = fixture.agents("per-key", 1, true, new ManualClock(), b -> b).get(0);
    try {
      long start = System.nanoTime();
      for (String id : ids) {
        if (agent.cache().get(id) == null) {
          throw new IllegalStateException("deal " + id + " is not in the emulator");
        }
      }
      return new Row("one `get` per key (organic fill)", ids.size(), (System.nanoTime() - start) / 1e9);
    } finally {
      agent.close();
    }
  }

  /**
   * The origin's own batched read rate with no cache in between: batches of the worker's size,
   * paced per batch to at most {@code rate} ids/s as the worker paces itself.
   */
  private static Row raw(FleetFixture fixture, List<String> ids, int rate) throws InterruptedException {
    SpannerOrigin<Deal> origin = DealOrigin.spanner(fixture.emulator().databaseClient(),
        FleetAgent.ORIGIN_TIMEOUT);
    int batch = Math.min(Preloader.BATCH_SIZE, rate);
    long start = System.nanoTime();
    long read = 0;
    for (int i = 0; i < ids.size(); i += batch) {
      long due = start + (long) (1e9 * i / rate);
      long wait = due - System.nanoTime();
      if (wait > 0) {
        Thread.sleep(wait / 1_000_000, (int) (wait % 1_000_000));
      }
      read += origin.loadAll(ids.subList(i, Math.min(ids.size(), i + batch))).size();
    }
    return new Row("emulator, raw batched reads of " + batch + (rate == UNCAPPED_RATE
        ? " (ceiling)" : " paced to " + rate + " ids/s"), read, (System.nanoTime() - start) / 1e9);
  }
}
