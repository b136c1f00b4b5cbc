package io.warmgate.bench.fleet;

import io.warmgate.bench.common.Percentiles;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.IntFunction;

/** Runs every agent of a fleet through its own list of requests at once, one thread per agent or more. */
final class Replay {

  /**
   * How a replay went: failed lookups (exceptions), the wall time until the last agent ended, and
   * the 99th percentile of one request's time.
   */
  record Outcome(long requests, long failures, double seconds, double p99Millis) {}

  private Replay() {}

  /**
   * Replays {@code requestsOf.apply(i)} through agent {@code i} with {@code getAll}, all agents
   * started together; returns when every agent is done.
   */
  static Outcome run(List<FleetAgent> agents, IntFunction<List<List<String>>> requestsOf)
      throws InterruptedException {
    return run(agents, requestsOf, 1);
  }

  /**
   * {@link #run(List, IntFunction)} with {@code callers} threads per agent, each taking the
   * agent's next request in order, as a pod serves concurrent requests.
   */
  static Outcome run(List<FleetAgent> agents, IntFunction<List<List<String>>> requestsOf,
      int callers) throws InterruptedException {
    ExecutorService threads = Executors.newFixedThreadPool(agents.size() * callers);
    LongAdder requests = new LongAdder();
    LongAdder failures = new LongAdder();
    ConcurrentLinkedQueue<Long> nanos = new ConcurrentLinkedQueue<>();
    long start = System.nanoTime();
    try {
      List<Future<?>> running = new ArrayList<>();
      for (int i = 0; i < agents.size(); i++) {
        FleetAgent agent = agents.get(i);
        List<List<String>> mine = requestsOf.apply(i);
        AtomicInteger next = new AtomicInteger();
        for (int c = 0; c < callers; c++) {
          running.add(threads.submit(() -> {
            for (int r = next.getAndIncrement(); r < mine.size(); r = next.getAndIncrement()) {
              List<String> ids = mine.get(r);
              requests.increment();
              long begin = System.nanoTime();
              try {
                agent.cache().getAll(ids);
              } catch (RuntimeException e) {
                failures.increment();
              }
              nanos.add(System.nanoTime() - begin);
            }
          }));
        }
      }
      for (Future<?> agent : running) {
        agent.get();
      }
    } catch (ExecutionException e) {
      throw new IllegalStateException("an agent's replay thread died", e.getCause());
    } finally {
      threads.shutdownNow();
    }
    long[] sorted = nanos.stream().mapToLong(Long::longValue).sorted().toArray();
    double p99 = Percentiles.nearestRank(sorted, 0.99) / 1e6;
    return new Outcome(requests.sum(), failures.sum(), (System.nanoTime() - start) / 1e9, p99);
  }
}
