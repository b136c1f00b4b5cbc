package io.warmgate.bench.release;

import io.warmgate.bench.ZipfIds;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * Open-loop Zipf traffic at a fixed fleet rate, spread round-robin over the live pods as a load
 * balancer would: arrivals are scheduled every {@code 1/rate} seconds whatever the pods answer, so
 * a slow pod does not slow the traffic down, and each lookup's latency is taken from its scheduled
 * arrival (queueing included). Every lookup is kept for the report.
 */
final class Traffic implements AutoCloseable {

  /** One lookup: scheduled arrival (epoch ms), id, whether a new-version pod served it, latency. */
  record Lookup(long atMillis, String id, boolean byNewPod, long latencyMicros, boolean failed) {}

  /** Enough threads that a pod waiting on the origin does not hold the others' lookups back. */
  private static final int THREADS = 128;

  private final ZipfIds ids;
  private final double rate;
  private final Fleet fleet;
  private final Random random;
  private final ConcurrentLinkedQueue<Lookup> lookups = new ConcurrentLinkedQueue<>();
  private final ExecutorService workers = Executors.newFixedThreadPool(THREADS, daemon("traffic"));
  private final Thread dispatcher;
  private volatile boolean running = true;

  Traffic(ZipfIds ids, double rate, Fleet fleet, long seed) {
    this.ids = ids;
    this.rate = rate;
    this.fleet = fleet;
    this.random = new Random(seed);
    this.dispatcher = daemon("traffic-dispatch").newThread(this::dispatch);
    dispatcher.start();
  }

  private void dispatch() {
    long intervalNanos = (long) (1e9 / rate);
    long next = System.nanoTime();
    long epochOffsetNanos = System.currentTimeMillis() * 1_000_000L - next;
    int turn = 0;
    while (running) {
      long wait = next - System.nanoTime();
      if (wait > 0) {
        LockSupport.parkNanos(wait);
        continue;
      }
      List<ReleasePod> live = fleet.live();
      if (!live.isEmpty()) {
        ReleasePod pod = live.get(Math.floorMod(turn++, live.size()));
        String id = ids.next(random);
        long scheduled = next;
        workers.execute(() -> lookup(pod, id, scheduled, epochOffsetNanos));
      }
      next += intervalNanos;
    }
  }

  private void lookup(ReleasePod pod, String id, long scheduledNanos, long epochOffsetNanos) {
    boolean failed = false;
    try {
      pod.lookup(id);
    } catch (RuntimeException e) {
      failed = true;
    }
    long latency = (System.nanoTime() - scheduledNanos) / 1_000;
    lookups.add(new Lookup((scheduledNanos + epochOffsetNanos) / 1_000_000L, id,
        pod.version().isNew(), latency, failed));
  }

  /** The lookups scheduled in {@code [fromMillis, toMillis)}. */
  List<Lookup> between(long fromMillis, long toMillis) {
    List<Lookup> in = new ArrayList<>();
    for (Lookup l : lookups) {
      if (l.atMillis() >= fromMillis && l.atMillis() < toMillis) {
        in.add(l);
      }
    }
    return in;
  }

  /** Stops scheduling lookups and waits for those under way. */
  @Override
  public void close() throws InterruptedException {
    running = false;
    dispatcher.join();
    workers.shutdown();
    if (!workers.awaitTermination(2, TimeUnit.MINUTES)) {
      throw new IllegalStateException("lookups still running 2 minutes after the traffic stopped");
    }
  }

  static java.util.concurrent.ThreadFactory daemon(String name) {
    return runnable -> {
      Thread t = new Thread(runnable, name);
      t.setDaemon(true);
      return t;
    };
  }
}
