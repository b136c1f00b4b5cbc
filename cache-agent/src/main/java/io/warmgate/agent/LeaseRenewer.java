package io.warmgate.agent;

import io.warmgate.agent.l2.L2Store;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Keeps the fill leases and refresh locks this pod holds alive while their loads run, so that a
 * lease lasts exactly as long as its holder's work and no longer: every third of the lease TTL,
 * one command renews all of them (one script call, or one per slot on a cluster, sent together),
 * each only while its own token still holds it.
 *
 * <p>A lease is renewed from {@link #hold} until {@link Hold#end}, and at most the origin's
 * timeout after its origin call began ({@link Hold#calling}): a call that outlives its own
 * deadline is not waited for by other pods. A holder that dies stops renewing, so its leases lapse
 * within one lease TTL of its last renewal. No thread waits here: a renewal is a timer task that
 * sends one command; nothing is sent while the pod holds no lease.
 */
final class LeaseRenewer implements AutoCloseable {

  /** Runs a due renewal on the timer thread: it only sends commands. */
  private static final Executor TIMER_THREAD = Runnable::run;

  /** Leases of one token that are renewed together, until {@link #end}. */
  final class Hold {
    private final List<String> keys;
    private final byte[] token;
    private volatile long untilNanos;
    private volatile boolean bounded;

    private Hold(List<String> keys, byte[] token) {
      this.keys = keys;
      this.token = token;
    }

    /** The origin call began: renew for at most the origin's timeout from now. */
    void calling() {
      untilNanos = System.nanoTime() + originTimeoutNanos;
      bounded = true;
    }

    /** Stops renewing; the holder deletes or leaves its leases itself. */
    void end() {
      held.remove(this);
    }
  }

  private final L2Store store;
  private final long ttlMillis;
  private final long intervalNanos;
  private final long originTimeoutNanos;
  private final Set<Hold> held = ConcurrentHashMap.newKeySet();
  private final AtomicBoolean ticking = new AtomicBoolean();
  private volatile boolean closed;

  /**
   * @param leaseTtl the TTL each lease is taken and renewed with
   * @param originTimeout how long after its origin call began a lease is still renewed
   */
  LeaseRenewer(L2Store store, Duration leaseTtl, Duration originTimeout) {
    this.store = store;
    this.ttlMillis = leaseTtl.toMillis();
    this.intervalNanos = Math.max(1, leaseTtl.toNanos() / 3);
    this.originTimeoutNanos = originTimeout.toNanos();
  }

  /** Starts renewing {@code keys}, which {@code token} holds; returns the handle that ends it. */
  Hold hold(List<String> keys, byte[] token) {
    Hold hold = new Hold(List.copyOf(keys), token);
    if (!closed) {
      held.add(hold);
      if (ticking.compareAndSet(false, true)) {
        schedule();
      }
    }
    return hold;
  }

  /** How many leases are being renewed now. */
  int size() {
    return held.stream().mapToInt(h -> h.keys.size()).sum();
  }

  @Override
  public void close() {
    closed = true;
    held.clear();
  }

  private void schedule() {
    CompletableFuture.delayedExecutor(intervalNanos, TimeUnit.NANOSECONDS, TIMER_THREAD)
        .execute(this::renew);
  }

  private void renew() {
    long now = System.nanoTime();
    List<String> keys = new ArrayList<>();
    List<byte[]> tokens = new ArrayList<>();
    for (Hold hold : held) {
      if (hold.bounded && now - hold.untilNanos >= 0) {
        held.remove(hold);
        continue;
      }
      for (String key : hold.keys) {
        keys.add(key);
        tokens.add(hold.token);
      }
    }
    if (!keys.isEmpty() && !closed) {
      // A failed renewal is not retried before the next tick: two more come within the TTL.
      store.renewAll(keys, tokens, ttlMillis, Duration.ofNanos(intervalNanos));
    }
    ticking.set(false);
    // A hold added after the set was read and before the flag dropped finds it still up.
    if (!closed && !held.isEmpty() && ticking.compareAndSet(false, true)) {
      schedule();
    }
  }
}
