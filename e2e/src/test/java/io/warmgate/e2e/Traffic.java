package io.warmgate.e2e;

import io.warmgate.example.deals.Zipf;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;

/** Zipf-distributed {@code GET /deals/{id}} at a steady rate over the pods of one Rollout. */
final class Traffic implements AutoCloseable {

  /** Lookups dropped because the senders' backlog was full. */
  private final AtomicLong notSent = new AtomicLong();
  /**
   * 32 senders and a bounded backlog of about 7 s of lookups at 150/s: a lookup that finds it full
   * is not sent (counted in {@link #failures()} as not sent), and {@link #close()} drops what is
   * left, so lookups piled up behind a slow path (a port-forward that no longer answers waits out
   * the 5 s timeout) never reach the pods after the traffic is closed. With 8 senders and this
   * bound, a loaded machine left 11,526 of 13,762 lookups of a StatefulSet update unsent.
   */
  private final ExecutorService senders = new ThreadPoolExecutor(32, 32, 0, TimeUnit.MILLISECONDS,
      new ArrayBlockingQueue<>(1024), (task, pool) -> notSent.incrementAndGet());
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
    long skipped = notSent.get();
    return failures + (skipped == 0 ? "" : "; not sent, senders busy: " + skipped);
  }

  @Override
  public void close() throws InterruptedException {
    running.set(false);
    pacer.join(5_000);
    // Lookups still queued are dropped: once closed, no lookup reaches the pods any more.
    senders.shutdownNow();
    senders.awaitTermination(10, TimeUnit.SECONDS);
  }
}
