package io.warmgate.gateway.metrics;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The gateway's counters, registered as {@code warmgate.gateway.*} meters. Per process: the
 * fleet-wide coalesce ratio is the sum of requests over the sum of upstream calls. Thread-safe.
 */
public final class GatewayMetrics {

  private final Counter requests;
  private final Counter upstreamCalls;
  private final Counter upstreamErrors;
  private final Counter validationFailures;
  private final Counter takeovers;
  private final Counter backfilledEvents;
  private final Counter resumes;
  private final Counter authRefusals;
  private final Counter keysRefused;
  private final Counter slowClientsDropped;
  private final AtomicInteger subscribers = new AtomicInteger();
  private final AtomicLong queuedBytes = new AtomicLong();

  /** Registers the meters in {@code registry}. */
  public GatewayMetrics(MeterRegistry registry) {
    requests = counter(registry, "requests", "stream requests accepted");
    upstreamCalls = counter(registry, "upstream.calls", "upstream calls started by this process");
    upstreamErrors = counter(registry, "upstream.errors", "upstream calls that failed");
    validationFailures = counter(registry, "validation.failures",
        "completed responses that violated their template's schema");
    takeovers = counter(registry, "takeovers", "runs taken over after their producer's lock expired");
    backfilledEvents = counter(registry, "backfilled.events",
        "events a subscriber got from what was already in the stream when it joined");
    resumes = counter(registry, "resumes", "requests carrying Last-Event-ID");
    authRefusals = counter(registry, "auth.refusals",
        "requests refused for a missing, unknown or other role's bearer token (401, 403)");
    keysRefused = counter(registry, "keys.refused",
        "stream requests refused with 429 because this process served its most distinct keys");
    slowClientsDropped = counter(registry, "slow.clients.dropped",
        "clients dropped for leaving their full write queue unread past the slow-client timeout");
    Gauge.builder("warmgate.gateway.subscribers", subscribers, AtomicInteger::get)
        .description("connected stream subscribers").register(registry);
    Gauge.builder("warmgate.gateway.queued.bytes", queuedBytes, AtomicLong::get)
        .description("bytes written to subscribers' connections that their sockets have not taken yet")
        .register(registry);
    Gauge.builder("warmgate.gateway.coalesce.ratio", this, GatewayMetrics::coalesceRatio)
        .description("requests per upstream call in this process").register(registry);
  }

  /** A request was accepted. */
  public void request() { requests.increment(); }
  /** An upstream call started. */
  public void upstreamCall() { upstreamCalls.increment(); }
  /** An upstream call failed. */
  public void upstreamError() { upstreamErrors.increment(); }
  /** A completed response violated its schema. */
  public void validationFailure() { validationFailures.increment(); }
  /** A run was taken over. */
  public void takeover() { takeovers.increment(); }
  /** {@code count} events were backfilled to a new subscriber. */
  public void backfilled(int count) { backfilledEvents.increment(count); }
  /** A request resumed with {@code Last-Event-ID}. */
  public void resume() { resumes.increment(); }
  /** A request was refused for its token. */
  public void authRefused() { authRefusals.increment(); }
  /** A stream request was refused because the process served its most distinct keys. */
  public void keyRefused() { keysRefused.increment(); }
  /** A client was dropped for reading too slowly. */
  public void slowClientDropped() { slowClientsDropped.increment(); }
  /** A subscriber connected. */
  public void subscriberOpened() { subscribers.incrementAndGet(); }
  /** A subscriber left or was completed. */
  public void subscriberClosed() { subscribers.decrementAndGet(); }

  /** {@code bytes} written to a subscriber's connection, held until its socket takes them. */
  public void queued(long bytes) { queuedBytes.addAndGet(bytes); }

  /** {@code bytes} queued earlier that the socket took, or that a closed connection dropped. */
  public void dequeued(long bytes) { queuedBytes.addAndGet(-bytes); }

  /** Requests so far. */
  public long requests() { return (long) requests.count(); }
  /** Upstream calls started so far. */
  public long upstreamCalls() { return (long) upstreamCalls.count(); }
  /** Upstream calls failed so far. */
  public long upstreamErrors() { return (long) upstreamErrors.count(); }
  /** Schema violations so far. */
  public long validationFailures() { return (long) validationFailures.count(); }
  /** Takeovers so far. */
  public long takeovers() { return (long) takeovers.count(); }
  /** Backfilled events so far. */
  public long backfilledEvents() { return (long) backfilledEvents.count(); }
  /** Resumed requests so far. */
  public long resumes() { return (long) resumes.count(); }
  /** Requests refused for their token so far. */
  public long authRefusals() { return (long) authRefusals.count(); }
  /** Stream requests refused with 429 so far. */
  public long keysRefused() { return (long) keysRefused.count(); }
  /** Slow clients dropped so far. */
  public long slowClientsDropped() { return (long) slowClientsDropped.count(); }
  /** Subscribers connected now. */
  public int subscribers() { return subscribers.get(); }

  /** Bytes written to subscribers' connections that their sockets have not taken yet. */
  public long queuedBytes() { return queuedBytes.get(); }

  /** Requests per upstream call; the request count while no call was made. */
  public double coalesceRatio() {
    return requests.count() / Math.max(1.0, upstreamCalls.count());
  }

  private static Counter counter(MeterRegistry registry, String name, String description) {
    return Counter.builder("warmgate.gateway." + name).description(description).register(registry);
  }
}
