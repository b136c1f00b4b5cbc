package io.warmgate.agent;

import io.github.resilience4j.circuitbreaker.CallNotPermittedException;
import io.github.resilience4j.circuitbreaker.CircuitBreaker;
import io.github.resilience4j.circuitbreaker.CircuitBreakerConfig;
import java.time.InstantSource;
import java.util.Locale;
import java.util.concurrent.TimeUnit;

/**
 * The circuit breaker in front of the origin. A call that threw counts as a failure, any answer
 * (not-found ids included) as a success, and an answer later than the slow-call threshold as
 * slow; once too many recent calls failed, or too many were slow, calls are refused until the
 * wait is over; then a few probe calls are let through: all succeed and it closes, one fails and
 * it opens again. Opening on slow calls sheds load from an origin that is saturated but still
 * answers, before its calls start to time out. Thread-safe.
 */
final class OriginBreaker {

  private final CircuitBreaker breaker;
  private final InstantSource clock;
  private final long waitMillis;
  private volatile long openedAtMillis;
  private volatile String openedBecause = "recent failures";
  private volatile Throwable lastError;

  OriginBreaker(CircuitBreakerConfig config, InstantSource clock) {
    this.breaker = CircuitBreaker.of("warmgate-origin", config);
    this.clock = clock;
    this.waitMillis = config.getWaitIntervalFunctionInOpenState().apply(1);
    // resilience4j does not say when an open breaker lets calls through again; the messages do.
    breaker.getEventPublisher().onStateTransition(e -> {
      if (e.getStateTransition().getToState() == CircuitBreaker.State.OPEN) {
        openedAtMillis = clock.millis();
        boolean slow = openedBySlowCalls(breaker.getMetrics(), config);
        if (slow) {
          lastError = null; // no call failed: an error of earlier calls is not the cause
        }
        openedBecause = slow ? slowCalls(breaker.getMetrics(), config) : "recent failures";
      }
    });
  }

  private static boolean openedBySlowCalls(CircuitBreaker.Metrics metrics, CircuitBreakerConfig config) {
    return metrics.getSlowCallRate() >= config.getSlowCallRateThreshold()
        && metrics.getFailureRate() < config.getFailureRateThreshold();
  }

  private static String slowCalls(CircuitBreaker.Metrics metrics, CircuitBreakerConfig config) {
    return String.format(Locale.ROOT, "%d of its last %d calls took longer than %.1f s "
        + "(%.0f %% of the origin's timeout): the origin is saturated", metrics.getNumberOfSlowCalls(),
        metrics.getNumberOfBufferedCalls(), config.getSlowCallDurationThreshold().toMillis() / 1000.0,
        WarmGate.SLOW_CALL_SHARE_OF_TIMEOUT * 100);
  }

  /**
   * Returns whether a call may go to the origin. A true answer must be followed by exactly one
   * {@link #succeeded} or {@link #failed}.
   */
  boolean tryAcquire() {
    return breaker.tryAcquirePermission();
  }

  void succeeded(long nanos) {
    breaker.onSuccess(nanos, TimeUnit.NANOSECONDS);
  }

  void failed(long nanos, Throwable error) {
    lastError = error;
    breaker.onError(nanos, TimeUnit.NANOSECONDS, error);
    // One failed probe is enough: the next probe would cost its caller the full origin timeout,
    // and its success alone would still leave a 50 % failure rate that opens the breaker again.
    if (breaker.getState() == CircuitBreaker.State.HALF_OPEN) {
      breaker.transitionToOpenState();
    }
  }

  CircuitBreaker.State state() {
    return breaker.getState();
  }

  /** The origin error that made the breaker open, to be the cause of what a refused call throws. */
  Throwable lastError() {
    Throwable error = lastError;
    return error != null ? error : CallNotPermittedException.createCallNotPermittedException(breaker);
  }

  /** Says why the origin was not called and when it will be tried again. */
  String refusal() {
    if (breaker.getState() == CircuitBreaker.State.HALF_OPEN) {
      return "the origin was not called: its circuit breaker is half-open after " + openedBecause + " and "
          + "its probe calls are still running";
    }
    long left = openedAtMillis + waitMillis - clock.millis();
    return "the origin was not called: its circuit breaker is open after " + openedBecause + " and "
        + (left > 0 ? String.format(Locale.ROOT, "probes it again in %.1f s", left / 1000.0)
            : "probes it again with the next load");
  }
}
