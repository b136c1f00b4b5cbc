package io.warmgate.agent.faults;

import io.warmgate.agent.TieredCache;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BiPredicate;

/**
 * Keeps a steady rate of {@code get} calls on a few caches from a few threads each, until
 * {@link #stop()}. A lookup fails when it throws or when {@code valid} rejects its answer. Lookups
 * are counted in the current {@link Phase}; {@link #phase(String)} starts the next one.
 */
final class LoadDriver<V> implements AutoCloseable {

  /** A thread that fell this far behind its schedule skips ahead instead of bursting. */
  private static final long MAX_LAG_NANOS = TimeUnit.MILLISECONDS.toNanos(200);

  private final List<TieredCache<V>> caches;
  private final KeyChooser keys;
  private final BiPredicate<String, V> valid;
  private final List<Thread> threads = new ArrayList<>();
  private final List<Phase> phases = new ArrayList<>();
  private volatile Phase current;
  private volatile boolean running = true;

  private LoadDriver(List<TieredCache<V>> caches, KeyChooser keys, BiPredicate<String, V> valid,
      String firstPhase) {
    this.caches = List.copyOf(caches);
    this.keys = keys;
    this.valid = valid;
    phase(firstPhase);
  }

  /** Starts {@code ratePerSecond} lookups in all, from {@code threadsPerCache} threads per cache. */
  static <V> LoadDriver<V> start(List<TieredCache<V>> caches, KeyChooser keys, int ratePerSecond,
      int threadsPerCache, BiPredicate<String, V> valid, String firstPhase) {
    LoadDriver<V> driver = new LoadDriver<>(caches, keys, valid, firstPhase);
    int threads = caches.size() * threadsPerCache;
    long intervalNanos = TimeUnit.SECONDS.toNanos(1) * threads / ratePerSecond;
    for (int t = 0; t < threads; t++) {
      int cache = t % caches.size();
      Thread thread = new Thread(() -> driver.run(cache, intervalNanos), "load-" + cache + "-" + t);
      thread.setDaemon(true);
      driver.threads.add(thread);
    }
    driver.threads.forEach(Thread::start);
    return driver;
  }

  private void run(int cache, long intervalNanos) {
    TieredCache<V> target = caches.get(cache);
    long next = System.nanoTime();
    while (running) {
      next += intervalNanos;
      long now = System.nanoTime();
      if (now - next > MAX_LAG_NANOS) {
        next = now;
      }
      if (next > now) {
        LockSupport.parkNanos(next - now);
      }
      Phase phase = current;
      String id = keys.next();
      phase.begin(cache, id);
      long start = System.nanoTime();
      try {
        V value = target.get(id);
        long took = System.nanoTime() - start;
        if (valid.test(id, value)) {
          phase.succeeded(took);
        } else {
          phase.failed(took, id + " -> unexpected " + value);
        }
      } catch (RuntimeException e) {
        phase.failed(System.nanoTime() - start, id + " -> " + e);
      }
    }
  }

  /** Ends the current phase and starts one named {@code name}; returns the new phase. */
  synchronized Phase phase(String name) {
    if (current != null) {
      current.end();
    }
    Phase next = new Phase(name, caches.size());
    phases.add(next);
    current = next;
    return next;
  }

  /** Stops the threads, ends the last phase and prints every phase. */
  synchronized List<Phase> stop() {
    if (running) {
      running = false;
      for (Thread thread : threads) {
        try {
          thread.join(TimeUnit.SECONDS.toMillis(30));
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
      }
      current.end();
      phases.forEach(System.out::println);
    }
    return List.copyOf(phases);
  }

  /** Sleeps {@code millis} while the load runs. */
  static void hold(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted", e);
    }
  }

  @Override
  public void close() {
    stop();
  }
}
