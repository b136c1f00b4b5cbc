package io.warmgate.agent;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The one shared load per id that this pod runs at a time, for lookups and background fills
 * alike. A load leaves the map just before it completes, whatever the outcome, so a failure is
 * never cached and no entry outlives its load. Thread-safe.
 */
final class InFlightLoads<V> {

  private final ConcurrentHashMap<String, CompletableFuture<V>> loads = new ConcurrentHashMap<>();

  /** The load of {@code id} in flight, or null. */
  CompletableFuture<V> get(String id) {
    return loads.get(id);
  }

  /** Registers {@code mine} as the load of {@code id}; returns the one in flight instead, if any. */
  CompletableFuture<V> putIfAbsent(String id, CompletableFuture<V> mine) {
    return loads.putIfAbsent(id, mine);
  }

  /**
   * Completes a shared load. It leaves the map first: a caller continuing on this thread
   * (dependents run inside {@code complete}) must start a new load, never reuse this one.
   */
  void succeed(String id, CompletableFuture<V> future, V value) {
    loads.remove(id, future);
    future.complete(value);
  }

  void fail(String id, CompletableFuture<V> future, Throwable error) {
    loads.remove(id, future);
    future.completeExceptionally(error);
  }
}
