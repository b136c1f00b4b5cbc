package io.warmgate.bench.fleet;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.IntFunction;

/** Runs every agent of a fleet through its own list of requests at once, one thread per agent. */
final class Replay {

  /** How a replay went: failed lookups (exceptions) and the wall time until the last agent ended. */
  record Outcome(long requests, long failures, double seconds) {}

  private Replay() {}

  /**
   * Replays {@code requestsOf.apply(i)} through agent {@code i} with {@code getAll}, all agents
   * started together; returns when every agent is done.
   */
  static Outcome run(List<FleetAgent> agents, IntFunction<List<List<String>>> requestsOf)
      throws InterruptedException {
    ExecutorService threads = Executors.newFixedThreadPool(agents.size());
    LongAdder requests = new LongAdder();
    LongAdder failures = new LongAdder();
    long start = System.nanoTime();
    try {
      List<Future<?>> running = new ArrayList<>();
      for (int i = 0; i < agents.size(); i++) {
        FleetAgent agent = agents.get(i);
        List<List<String>> mine = requestsOf.apply(i);
        running.add(threads.submit(() -> {
          for (List<String> ids : mine) {
            requests.increment();
            try {
              agent.cache().getAll(ids);
            } catch (RuntimeException e) {
              failures.increment();
            }
          }
        }));
      }
      for (Future<?> agent : running) {
        agent.get();
      }
    } catch (ExecutionException e) {
      throw new IllegalStateException("an agent's replay thread died", e.getCause());
    } finally {
      threads.shutdownNow();
    }
    return new Outcome(requests.sum(), failures.sum(), (System.nanoTime() - start) / 1e9);
  }
}
