package io.warmgate.bench.release;

import io.warmgate.bench.common.ZipfIds;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.Random;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.LockSupport;

/**
 * Open-loop Zipf traffic at a fixed fleet rate, spread round-robin over the live pods as a load
 * balancer would: requests of a few ids arrive every {@code 1/rate} seconds whatever the pods
 * answer, so a slow pod does not slow the traffic down, and each request's latency is taken from
 * its scheduled arrival (queueing included). Every request is kept for the report, and every
 * failure's kind.
 */
final class Traffic implements AutoCloseable {

  /** One request: scheduled arrival (epoch ms), ids, whether a new-version pod served it, latency. */
  record Lookup(long atMillis, List<String> ids, boolean byNewPod, long latencyMicros,
      boolean failed) {}

  /** Enough threads that a pod waiting on the origin does not hold the others' lookups back. */
  private static final int THREADS = 128;

  private final ZipfIds ids;
  private final int idsPerRequest;
  private final double rate;
  private final Map<String, LongAdder> failures = new ConcurrentHashMap<>();
  private final Fleet fleet;
  private final Random random;
  private final ConcurrentLinkedQueue<Lookup> lookups = new ConcurrentLinkedQueue<>();
  private final ExecutorService workers = Executors.newFixedThreadPool(THREADS, daemon("traffic"));
  private final Thread dispatcher;
  private volatile boolean running = true;

  Traffic(ZipfIds ids, int idsPerRequest, double rate, Fleet fleet, long seed) {
    this.ids = ids;
    this.idsPerRequest = idsPerRequest;
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
        List<String> request = new ArrayList<>(idsPerRequest);
        for (int i = 0; i < idsPerRequest; i++) {
          request.add(ids.next(random));
        }
        long scheduled = next;
        pod.accept();
        workers.execute(() -> lookup(pod, request, scheduled, epochOffsetNanos));
      }
      next += intervalNanos;
    }
  }

  private void lookup(ReleasePod pod, List<String> request, long scheduledNanos,
      long epochOffsetNanos) {
    boolean failed = false;
    try {
      pod.lookup(request);
    } catch (RuntimeException e) {
      failed = true;
      String message = String.valueOf(e.getMessage());
      failures.computeIfAbsent(e.getClass().getSimpleName() + ": "
          + message.substring(0, Math.min(100, message.length())), k -> new LongAdder()).increment();
    }
    long latency = (System.nanoTime() - scheduledNanos) / 1_000;
    lookups.add(new Lookup((scheduledNanos + epochOffsetNanos) / 1_000_000L, request,
        pod.version().isNew(), latency, failed));
  }

  /** How often each kind of failure happened, by exception and the start of its message. */
  Map<String, Long> failureKinds() {
    Map<String, Long> kinds = new TreeMap<>();
    failures.forEach((kind, count) -> kinds.put(kind, count.sum()));
    return kinds;
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
    if (!workers.awaitTermination(10, TimeUnit.MINUTES)) {
      throw new IllegalStateException("requests still running 10 minutes after the traffic "
          + "stopped: the origin fell that far behind; lower --release-rate");
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
