package io.warmgate.e2e;

import io.warmgate.example.deals.Zipf;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;

/** Zipf-distributed {@code GET /deals/{id}} at a steady rate over the pods of one Rollout. */
final class Traffic implements AutoCloseable {

  private final ExecutorService senders = Executors.newFixedThreadPool(8);
  private final Thread pacer;
  private final AtomicBoolean running = new AtomicBoolean(true);
  final AtomicLong ok = new AtomicLong();
  final AtomicLong failed = new AtomicLong();
  /** Failed lookups by HTTP status, -1 for no answer (refused, reset or timed out). */
  private final Map<Integer, AtomicLong> failures = new ConcurrentSkipListMap<>();

  Traffic(Supplier<List<Integer>> ports, int deals, double skew, int perSecond, long seed) {
    Zipf zipf = new Zipf(deals, skew);
    SplittableRandom random = new SplittableRandom(seed);
    long intervalNanos = TimeUnit.SECONDS.toNanos(1) / perSecond;
    pacer = new Thread(() -> {
      long next = System.nanoTime();
      List<Integer> current = ports.get();
      long refreshed = next;
      while (running.get()) {
        long now = System.nanoTime();
        if (now - refreshed > TimeUnit.SECONDS.toNanos(1)) {
          current = ports.get();
          refreshed = now;
        }
        if (now < next || current.isEmpty()) {
          Thread.onSpinWait();
          try {
            TimeUnit.MILLISECONDS.sleep(1);
          } catch (InterruptedException e) {
            return;
          }
          continue;
        }
        next += intervalNanos;
        int port = current.get(random.nextInt(current.size()));
        String id = String.format("deal-%06d", zipf.next(random));
        senders.execute(() -> {
          int status = Http.status("http://127.0.0.1:" + port + "/deals/" + id);
          if (status == 200 || status == 404) {
            ok.incrementAndGet();
          } else {
            failed.incrementAndGet();
            failures.computeIfAbsent(status, k -> new AtomicLong()).incrementAndGet();
          }
        });
      }
    }, "e2e-traffic");
    pacer.setDaemon(true);
    pacer.start();
  }

  /** The failed lookups by HTTP status ({@code -1}: no answer), e.g. {@code {-1=12, 503=2}}. */
  String failures() {
    return failures.toString();
  }

  @Override
  public void close() throws InterruptedException {
    running.set(false);
    pacer.join(5_000);
    senders.shutdown();
    senders.awaitTermination(10, TimeUnit.SECONDS);
  }
}
