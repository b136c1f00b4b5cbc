package io.warmgate.bench.origin;

import io.warmgate.agent.Origin;
import io.warmgate.sim.spanner.SpannerCapacity;
import java.time.Duration;
import java.util.Collection;
import java.util.Map;

/**
 * An {@link Origin} with the capacity of a modelled Spanner instance, in real time: a
 * <b>stand-in</b> for Spanner, never Spanner. Each call is offered to the simulator's
 * {@link SpannerCapacity} model at the wall-clock time it arrives, as one query of its ids; the
 * call then takes the latency the model answers (queueing included) before the delegate supplies
 * the values, or fails as an overloaded instance does: after the deadline with a
 * {@link StatusException} {@code DEADLINE_EXCEEDED}, or at once with {@code RESOURCE_EXHAUSTED}.
 * The delegate's own time adds to the modelled latency, so it should be fast (in memory).
 * Thread-safe: calls are offered to the model one at a time, in arrival order.
 */
public final class CapacityModelledOrigin<V> implements Origin<V> {

  /** What an overloaded instance answers: the gRPC status code is the message's first word. */
  public static final class StatusException extends RuntimeException {
    private final String code;

    StatusException(String code, String detail) {
      super(code + ": " + detail);
      this.code = code;
    }

    /** {@code DEADLINE_EXCEEDED} or {@code RESOURCE_EXHAUSTED}. */
    public String code() {
      return code;
    }
  }

  /** The slot one query occupies in the model's arrivals, seconds. */
  private static final double SLOT = 1e-4;

  private final Origin<V> delegate;
  private final SpannerCapacity model;
  private final long startNanos = System.nanoTime();
  private double last;

  public CapacityModelledOrigin(Origin<V> delegate, SpannerCapacity.Settings settings) {
    this.delegate = delegate;
    this.model = new SpannerCapacity(settings);
  }

  /** The modelled client's deadline: how long the cache lets one of its calls run. */
  @Override
  public Duration timeout() {
    return model.settings().deadline();
  }

  /** The model's settings. */
  public SpannerCapacity.Settings settings() {
    return model.settings();
  }

  @Override
  public Map<String, V> loadAll(Collection<String> ids) throws Exception {
    SpannerCapacity.Answer answer;
    synchronized (model) {
      double at = Math.max(last, (System.nanoTime() - startNanos) / 1e9);
      answer = model.offer(at, SLOT, 1, Math.max(1, ids.size()));
      last = at + SLOT;
    }
    if (answer.resourceExhausted() > 0) {
      throw new StatusException("RESOURCE_EXHAUSTED", "the modelled instance refused a read of "
          + ids.size() + " ids: its queue is full");
    }
    if (answer.deadlineExceeded() > 0) {
      Thread.sleep(model.settings().deadline().toMillis());
      throw new StatusException("DEADLINE_EXCEEDED", "a read of " + ids.size() + " ids was not "
          + "answered within " + model.settings().deadline().toMillis() + " ms by the modelled "
          + "instance");
    }
    long nanos = (long) (answer.meanLatencySeconds() * 1e9);
    Thread.sleep(nanos / 1_000_000, (int) (nanos % 1_000_000));
    return delegate.loadAll(ids);
  }
}
