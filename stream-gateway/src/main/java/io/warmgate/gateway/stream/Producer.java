package io.warmgate.gateway.stream;

import com.fasterxml.jackson.databind.JsonNode;
import io.warmgate.gateway.key.CoalescingKey;
import io.warmgate.gateway.upstream.UpstreamCall;
import io.warmgate.gateway.upstream.UpstreamEvent;
import io.warmgate.gateway.upstream.UpstreamException;
import io.warmgate.gateway.upstream.UpstreamListener;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The one upstream call of a run: reads the upstream's events and appends them, in order, to the
 * run's stream, independently of any client connection.
 *
 * <p><b>Takeover rule.</b> Every chunk carries its index {@code i} (0-based, in upstream order) and
 * the run's state counts the chunks in the stream ({@code next}). A pod that takes a run over
 * (its producer's lock expired) calls the upstream again from the start and <em>skips the first
 * {@code next} events by index</em>, appending from index {@code next} on; the append script
 * drops any lower index and refuses a gap, so no chunk is duplicated or missing. This assumes the
 * upstream answers the same shared request with the same events (deterministic templates, or a
 * cached generation); an upstream that cannot promise that should not be coalesced.
 *
 * <p><b>Validation.</b> For a template with a JSON Schema the events are held in memory until the
 * response completed and validated, then appended at once; a violation appends only an error
 * entry, so nothing invalid is ever fanned out or kept as the snapshot.
 *
 * <p><b>Ending.</b> Completion appends {@code done} and keeps the stream readable for the result
 * TTL (long while a burst flag is up); failure appends {@code error} and marks the run failed, so
 * the next request calls the upstream anew. Both release the lock at once. A producer that loses
 * its lock (renewal or append refused) stops without writing anything more.
 */
final class Producer {

  private static final Logger log = LoggerFactory.getLogger(Producer.class);
  private static final int PAUSE_ABOVE = 256;
  private static final int RESUME_BELOW = 64;

  private final Coalescer coalescer;
  private final CoalescingKey key;
  private final StreamKeys keys;
  private final JsonNode shared;
  private final String run;
  private final long skip;
  private final boolean validating;
  private final List<UpstreamEvent> held = new ArrayList<>();
  private final AtomicBoolean stopped = new AtomicBoolean();
  private final AtomicInteger pending = new AtomicInteger();
  private volatile boolean paused;
  private volatile UpstreamCall call;
  private volatile ScheduledFuture<?> renewal;
  private volatile CompletableFuture<Void> tail = CompletableFuture.completedFuture(null);
  private long seen;

  Producer(Coalescer coalescer, CoalescingKey key, JsonNode shared, String run, long skip) {
    this.coalescer = coalescer;
    this.key = key;
    this.keys = StreamKeys.of(key);
    this.shared = shared;
    this.run = run;
    this.skip = skip;
    this.validating = coalescer.validator().validates(key.template());
  }

  void start() {
    coalescer.metrics().upstreamCall();
    long period = Math.max(1, coalescer.settings().lockTtl().toMillis() / 3);
    renewal = coalescer.scheduler().scheduleAtFixedRate(this::renew, period, period, TimeUnit.MILLISECONDS);
    call = coalescer.upstream().open(key.template(), shared, new UpstreamListener() {
      @Override
      public void onEvent(UpstreamEvent event) {
        Producer.this.onEvent(event);
      }

      @Override
      public void onEnd() {
        Producer.this.onEnd();
      }

      @Override
      public void onError(Throwable failure) {
        coalescer.metrics().upstreamError();
        log.warn("{}: {}", key, failure.getMessage());
        // Clients see the short message: the upstream's address and error body stay in the log.
        enqueue(() -> finish(StreamEntry.Type.ERROR, UpstreamException.clientMessage(failure)));
      }
    });
  }

  /** Stops at once, writing nothing more (lost lock, or the process is going away). */
  void abort() {
    if (stopped.compareAndSet(false, true)) {
      release();
    }
  }

  /**
   * Stops and gives the lock up (graceful shutdown): another pod takes the run over from the
   * chunks already appended. Completes when the lock is released or could not be.
   */
  CompletableFuture<Void> handOver() {
    if (!stopped.compareAndSet(false, true)) {
      return CompletableFuture.completedFuture(null);
    }
    release();
    // Appends already sent may still land; they are fenced and indexed, so order is kept.
    return tail.exceptionally(e -> null)
        .thenCompose(v -> coalescer.store().release(keys, coalescer.token()))
        .handle((released, e) -> null);
  }

  private void onEvent(UpstreamEvent event) {
    long index = seen++;
    if (index >= coalescer.settings().streamCap()) {
      if (index == coalescer.settings().streamCap()) {
        call.cancel();
        coalescer.metrics().upstreamError();
        enqueue(() -> finish(StreamEntry.Type.ERROR, "the upstream response has more than "
            + coalescer.settings().streamCap() + " chunks; raise WARMGATE_GATEWAY_STREAM_CAP"));
      }
      return;
    }
    if (validating) {
      held.add(event);
    } else if (index >= skip) {
      enqueue(() -> append(index, event));
    }
  }

  private void onEnd() {
    if (validating) {
      StringBuilder whole = new StringBuilder();
      held.forEach(e -> whole.append(e.data()));
      var violation = coalescer.validator().violation(key.template(), whole.toString());
      if (violation.isPresent()) {
        coalescer.metrics().validationFailure();
        log.warn("{}: {}", key, violation.get());
        enqueue(() -> finish(StreamEntry.Type.ERROR, violation.get()));
        return;
      }
      for (int i = (int) Math.min(skip, held.size()); i < held.size(); i++) {
        long index = i;
        UpstreamEvent event = held.get(i);
        enqueue(() -> append(index, event));
      }
    }
    enqueue(() -> finish(StreamEntry.Type.DONE, ""));
  }

  /** Chains a Valkey write after the previous ones, so entries land in upstream order. */
  private void enqueue(java.util.function.Supplier<CompletableFuture<Void>> write) {
    if (pending.incrementAndGet() > PAUSE_ABOVE && !paused && call != null) {
      paused = true;
      call.pause();
    }
    tail = tail.thenCompose(v -> stopped.get() ? CompletableFuture.<Void>completedFuture(null) : write.get())
        .exceptionally(error -> {
          log.warn("{}: cannot write the shared response to Valkey, stopping: {}", key, error.toString());
          abort();
          return null;
        })
        .whenComplete((v, e) -> {
          if (pending.decrementAndGet() < RESUME_BELOW && paused && call != null) {
            paused = false;
            call.resume();
          }
        });
  }

  private CompletableFuture<Void> append(long index, UpstreamEvent event) {
    return coalescer.store().append(keys, run, coalescer.token(), index, event.event(), event.data())
        .thenAccept(result -> {
          if (result == RunStore.Append.LOST) {
            log.warn("{}: lost the lock of run {} at chunk {}; another pod produces it now", key, run, index);
            abort();
          }
        });
  }

  private CompletableFuture<Void> finish(StreamEntry.Type type, String message) {
    long chunks = Math.max(seen, skip);
    CompletableFuture<Duration> ttl = type == StreamEntry.Type.DONE
        ? coalescer.store().burstUp(key.template()).thenApply(burst -> burst
            ? coalescer.settings().burstResultTtl() : coalescer.settings().resultTtl())
        // A failed run's entries stay just long enough for every reader to see the error entry.
        : CompletableFuture.completedFuture(coalescer.store().runningTtl());
    return ttl.thenCompose(d -> coalescer.store().finish(keys, run, coalescer.token(),
            Math.min(chunks, coalescer.settings().streamCap()), type, message, d))
        .thenAccept(written -> {
          if (!written) {
            log.warn("{}: lost the lock of run {} before finishing it", key, run);
          }
          if (stopped.compareAndSet(false, true)) {
            release();
          }
        });
  }

  private void renew() {
    if (stopped.get()) {
      return;
    }
    coalescer.store().renew(keys, run, coalescer.token()).whenComplete((held, error) -> {
      if (error != null) {
        log.warn("{}: cannot renew the lock of run {}: {}", key, run, error.toString());
      } else if (!held && !stopped.get()) {
        log.warn("{}: the lock of run {} expired before renewal; stopping", key, run);
        abort();
      }
    });
  }

  private void release() {
    ScheduledFuture<?> r = renewal;
    if (r != null) {
      r.cancel(false);
    }
    UpstreamCall c = call;
    if (c != null) {
      c.cancel();
    }
    coalescer.producerDone(key, run, this);
  }
}
