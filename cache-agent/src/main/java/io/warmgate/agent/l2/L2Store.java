package io.warmgate.agent.l2;

import io.github.resilience4j.circuitbreaker.CircuitBreaker;
import io.github.resilience4j.circuitbreaker.CircuitBreakerConfig;
import io.lettuce.core.KeyValue;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.SetArgs;
import io.lettuce.core.cluster.SlotHash;
import io.lettuce.core.codec.ByteArrayCodec;
import io.lettuce.core.codec.RedisCodec;
import io.lettuce.core.codec.StringCodec;
import io.lettuce.core.resource.ClientResources;
import io.warmgate.valkey.ValkeyConnection;
import io.warmgate.valkey.ValkeyEndpoint;
import java.time.Duration;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The Valkey/Redis client of the L2 tier, on a standalone server or a cluster
 * ({@link ValkeyConnection}): a lookup's command is bounded by a time budget and goes through a
 * circuit breaker, so a slow or absent server costs a lookup at most the budget and, once the
 * breaker is open, nothing. A background command (the overloads that take a timeout) is bounded by
 * that timeout alone and bypasses the breaker ({@link Bound}). On a cluster one breaker covers
 * every node: it opens once half of the recent lookup commands failed, whichever nodes they went
 * to (under load, a dead primary of three does that within a fraction of a second, as a whole
 * cluster that stops answering would).
 *
 * <p>Every method returns at once; the future fails with {@link L2UnavailableException} when the
 * breaker is open (lookups) or no connection exists, with a {@link TimeoutException} when the
 * bound ran out, or with Lettuce's exception. Failures are reported to the {@link Listener} once
 * each. Thread-safe.
 *
 * <p>A command's future is completed on the store's {@code replies} executor (lookups may name
 * another), never on a Lettuce I/O thread: whatever runs on a reply, decoding included, would
 * otherwise hold up every other reply of that connection, and a blocking call there would wait
 * for a reply that only the blocked thread can deliver. A future that fails before a command is
 * sent (breaker open, not connected) is already failed when returned.
 */
public final class L2Store implements AutoCloseable {

  /** Receives L2 failures, for metrics. Called on Lettuce or timer threads: must not block. */
  public interface Listener {
    /** A command failed ({@code timeout} = the budget ran out). */
    void failed(Throwable cause, boolean timeout);

    /** A command was not sent because the breaker is open or no connection exists. */
    void skipped();
  }

  /** The future's failure when L2 was not tried; carries no stack trace. */
  public static final class L2UnavailableException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    L2UnavailableException(String message) {
      super(message, null, false, false);
    }
  }

  /** How long one connection attempt may take. */
  public static final Duration CONNECT_TIMEOUT = ValkeyConnection.CONNECT_TIMEOUT;

  private static final Logger log = LoggerFactory.getLogger(L2Store.class);
  private static final RedisCodec<String, byte[]> CODEC =
      RedisCodec.of(StringCodec.UTF8, ByteArrayCodec.INSTANCE);
  private static final L2UnavailableException BREAKER_OPEN =
      new L2UnavailableException("L2 circuit breaker is open");
  private static final L2UnavailableException NOT_CONNECTED =
      new L2UnavailableException("L2 is not connected");
  /** Deletes the lock only if it still holds our token, so an expired lock taken over by another
   * pod is never released by us. */
  private static final String COMPARE_AND_DELETE =
      "if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) else return 0 end";
  /**
   * KEYS = locks; ARGV[1] = ttl ms, ARGV[1 + i] = the token of KEYS[i]. Extends each lock its
   * token still holds; returns how many it extended.
   */
  private static final String RENEW_ALL = """
      local renewed = 0
      for i, key in ipairs(KEYS) do
        if redis.call('get', key) == ARGV[i + 1] then
          renewed = renewed + redis.call('pexpire', key, ARGV[1])
        end
      end
      return renewed
      """;
  /** Most locks one renewal script takes: its reply stays short of a lookup's budget. */
  static final int MAX_RENEWALS_PER_SCRIPT = 1_000;
  private static final long RECONNECT_INTERVAL_NANOS = TimeUnit.SECONDS.toNanos(1);

  private final ClientResources resources;
  private final ValkeyEndpoint endpoint;
  /** The bound of a lookup's command: the budget, through the breaker. */
  private final Bound lookupBound;
  private final CircuitBreaker breaker;
  private final Listener listener;
  private final Executor replies;
  private final AtomicBoolean connecting = new AtomicBoolean();
  private volatile ValkeyConnection<byte[]> connection;
  private volatile long nextConnectNanos;
  private volatile boolean closed;
  /** The latest failure, named when the breaker opens. */
  private volatile Throwable lastError;

  private L2Store(ValkeyEndpoint endpoint, Duration budget, CircuitBreakerConfig breakerConfig,
      Listener listener, Executor replies) {
    this.endpoint = endpoint;
    this.lookupBound = new Bound(budget.toNanos(), true);
    this.listener = listener;
    this.replies = replies;
    this.breaker = CircuitBreaker.of("warmgate-l2", breakerConfig);
    this.resources = ValkeyConnection.resources(0);
    // Lookups go to the origin while it is open: an operator must see when and why.
    breaker.getEventPublisher().onStateTransition(e -> {
      CircuitBreaker.State to = e.getStateTransition().getToState();
      if (to == CircuitBreaker.State.OPEN) {
        log.warn("L2 ({}) circuit breaker opened: {} % of the last {} commands failed, the latest "
            + "with {}; lookups skip L2 for {} s", endpoint,
            Math.round(breaker.getMetrics().getFailureRate()),
            breaker.getMetrics().getNumberOfBufferedCalls(), lastError,
            breakerConfig.getWaitIntervalFunctionInOpenState().apply(1) / 1000.0);
      } else if (to == CircuitBreaker.State.CLOSED) {
        log.info("L2 ({}) circuit breaker closed: L2 is used again", endpoint);
      }
    });
  }

  /**
   * Creates a store for {@code endpoint} and tries to connect for up to {@code connectWait}; if
   * that fails it keeps trying in the background (at most once a second, on demand) and fails
   * commands meanwhile.
   *
   * @param replies completes the commands' futures (see the class comment); the caller owns it
   *     and shuts it down after closing the store
   */
  public static L2Store connect(ValkeyEndpoint endpoint, Duration budget,
      CircuitBreakerConfig breakerConfig, Listener listener, Executor replies,
      Duration connectWait) {
    L2Store store = new L2Store(Objects.requireNonNull(endpoint), budget, breakerConfig, listener,
        Objects.requireNonNull(replies, "replies"));
    CompletableFuture<?> first = store.startConnect();
    try {
      first.get(connectWait.toMillis(), TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (Exception e) {
      log.warn("L2 ({}) is not reachable yet ({}); lookups use the origin until it is",
          endpoint, e.toString());
    }
    return store;
  }

  /**
   * A lookup's {@code GET key}: completes with null when the key does not exist. May be answered
   * by a replica when the endpoint reads from replicas ({@link ValkeyEndpoint.ReadFrom}).
   *
   * @param replies completes the future, instead of the store's executor: a caller that blocks
   *     for the reply can take it on its own thread
   */
  public CompletableFuture<byte[]> lookup(String key, Executor replies) {
    return guarded(() -> connection.lookups().get(key), lookupBound, replies);
  }

  /**
   * A lookup's {@code MGET keys} (one per slot on a cluster): the list holds null for each missing
   * key, in order. May be answered by replicas, as {@link #lookup}, and completed on
   * {@code replies}, as there.
   */
  public CompletableFuture<List<byte[]>> lookupAll(List<String> keys, Executor replies) {
    return getAll(keys, lookupBound, true, replies);
  }

  /**
   * {@code MGET keys} from the primaries: sees every write this store sent before it, as a fill
   * lease or lock holder needs. The list holds null for each missing key, in order.
   */
  public CompletableFuture<List<byte[]>> getAll(List<String> keys) {
    return getAll(keys, lookupBound, false, replies);
  }

  /**
   * {@link #getAll(List)} bounded by {@code timeout} instead of the lookup budget: for background
   * work (filling L2), where a lookup's budget would only turn a slow reply into a reload.
   */
  public CompletableFuture<List<byte[]>> getAll(List<String> keys, Duration timeout) {
    return getAll(keys, Bound.background(timeout), false, replies);
  }

  private CompletableFuture<List<byte[]>> getAll(List<String> keys, Bound bound,
      boolean lookup, Executor replies) {
    String[] array = keys.toArray(String[]::new);
    return guarded(() -> (lookup ? connection.lookups() : connection.async()).mget(array),
            bound, replies)
        .thenApply(values -> {
          List<byte[]> out = new ArrayList<>(values.size());
          for (KeyValue<String, byte[]> kv : values) {
            out.add(kv.hasValue() ? kv.getValue() : null);
          }
          return out;
        });
  }

  /** {@code SET key value PX ttlMillis}. */
  public CompletableFuture<String> set(String key, byte[] value, long ttlMillis) {
    return set(key, value, ttlMillis, lookupBound);
  }

  /** {@code SET key value PX ttlMillis} bounded by {@code timeout}: see {@link #getAll(List, Duration)}. */
  public CompletableFuture<String> set(String key, byte[] value, long ttlMillis, Duration timeout) {
    return set(key, value, ttlMillis, Bound.background(timeout));
  }

  private CompletableFuture<String> set(String key, byte[] value, long ttlMillis, Bound bound) {
    return guarded(() -> connection.async().set(key, value, SetArgs.Builder.px(ttlMillis)),
        bound, replies);
  }

  /** {@code SET key value NX PX ttlMillis}; completes with whether the key was set. */
  public CompletableFuture<Boolean> setIfAbsent(String key, byte[] value, long ttlMillis) {
    return setIfAbsent(key, value, ttlMillis, lookupBound);
  }

  /** {@link #setIfAbsent(String, byte[], long)} bounded by {@code timeout}: see {@link #getAll(List, Duration)}. */
  public CompletableFuture<Boolean> setIfAbsent(String key, byte[] value, long ttlMillis,
      Duration timeout) {
    return setIfAbsent(key, value, ttlMillis, Bound.background(timeout));
  }

  private CompletableFuture<Boolean> setIfAbsent(String key, byte[] value, long ttlMillis,
      Bound bound) {
    return guarded(() -> connection.async().set(key, value, SetArgs.Builder.nx().px(ttlMillis)),
        bound, replies).thenApply("OK"::equals);
  }

  /** {@code UNLINK key} bounded by {@code timeout}; completes with whether the key existed. */
  public CompletableFuture<Boolean> delete(String key, Duration timeout) {
    return guarded(() -> connection.async().unlink(key), Bound.background(timeout), replies)
        .thenApply(n -> n != null && n > 0);
  }

  /** Deletes {@code key} if it holds {@code expected} (one Lua call); completes with whether it did. */
  public CompletableFuture<Boolean> deleteIfEquals(String key, byte[] expected) {
    return deleteIfEquals(key, expected, lookupBound);
  }

  /** {@link #deleteIfEquals(String, byte[])} bounded by {@code timeout}: see {@link #getAll(List, Duration)}. */
  public CompletableFuture<Boolean> deleteIfEquals(String key, byte[] expected, Duration timeout) {
    return deleteIfEquals(key, expected, Bound.background(timeout));
  }

  private CompletableFuture<Boolean> deleteIfEquals(String key, byte[] expected, Bound bound) {
    return guarded(() -> connection.async().<Long>eval(
            COMPARE_AND_DELETE, ScriptOutputType.INTEGER, new String[] {key}, expected),
        bound, replies).thenApply(n -> n != null && n == 1L);
  }

  /**
   * Extends each of {@code keys} to {@code ttlMillis} if it still holds the token at the same
   * index of {@code tokens}, with one script call, or one per slot on a cluster (a script's keys
   * must share a slot), all sent at once; completes with how many were extended. Each call is
   * bounded by {@code timeout}; a failed one counts none.
   */
  public CompletableFuture<Long> renewAll(List<String> keys, List<byte[]> tokens, long ttlMillis,
      Duration timeout) {
    Map<Integer, List<Integer>> groups = new LinkedHashMap<>();
    boolean cluster = endpoint.mode() == ValkeyEndpoint.Mode.CLUSTER;
    for (int i = 0; i < keys.size(); i++) {
      int group = cluster ? SlotHash.getSlot(keys.get(i)) : i / MAX_RENEWALS_PER_SCRIPT;
      groups.computeIfAbsent(group, g -> new ArrayList<>()).add(i);
    }
    byte[] ttl = Long.toString(ttlMillis).getBytes(StandardCharsets.US_ASCII);
    List<CompletableFuture<Long>> calls = new ArrayList<>(groups.size());
    for (List<Integer> group : groups.values()) {
      String[] groupKeys = new String[group.size()];
      byte[][] args = new byte[group.size() + 1][];
      args[0] = ttl;
      for (int j = 0; j < group.size(); j++) {
        groupKeys[j] = keys.get(group.get(j));
        args[j + 1] = tokens.get(group.get(j));
      }
      calls.add(guarded(() -> connection.async().<Long>eval(RENEW_ALL, ScriptOutputType.INTEGER,
              groupKeys, args), Bound.background(timeout), replies)
          .exceptionally(error -> 0L));
    }
    return CompletableFuture.allOf(calls.toArray(CompletableFuture[]::new))
        .thenApply(ignored -> calls.stream().mapToLong(CompletableFuture::join).sum());
  }

  /**
   * Whether commands are being sent: connected, and the circuit breaker closed. False from the
   * moment the connection drops, before the breaker has counted failures.
   */
  public boolean isAvailable() {
    ValkeyConnection<byte[]> c = connection;
    return c != null && c.isOpen() && breaker.getState() == CircuitBreaker.State.CLOSED;
  }

  /** The circuit breaker's state. */
  public CircuitBreaker.State breakerState() {
    return breaker.getState();
  }

  /** Closes the connection and the client. Idempotent. */
  @Override
  public void close() {
    if (closed) {
      return;
    }
    closed = true;
    ValkeyConnection<byte[]> c = connection;
    if (c != null) {
      c.close();
    }
    resources.shutdown(0, 2, TimeUnit.SECONDS);
  }

  private <T> CompletableFuture<T> guarded(Supplier<? extends CompletionStage<T>> command) {
    return guarded(command, lookupBound, replies);
  }

  /**
   * Where every command goes and every reply enters: counted here, then handed to
   * {@code replies}. A lookup's command asks the breaker and feeds it; a background one neither.
   */
  private <T> CompletableFuture<T> guarded(Supplier<? extends CompletionStage<T>> command,
      Bound bound, Executor replies) {
    if (connection == null) {
      maybeReconnect();
      listener.skipped();
      return CompletableFuture.failedFuture(NOT_CONNECTED);
    }
    if (bound.breaker() && !breaker.tryAcquirePermission()) {
      listener.skipped();
      return CompletableFuture.failedFuture(BREAKER_OPEN);
    }
    long start = System.nanoTime();
    CompletableFuture<T> result;
    try {
      // A copy, so that the timeout fails our future without touching Lettuce's command.
      result = command.get().toCompletableFuture().copy();
    } catch (RuntimeException e) {
      result = CompletableFuture.failedFuture(e);
    }
    CompletableFuture<T> reply = new CompletableFuture<>();
    result.orTimeout(bound.nanos(), TimeUnit.NANOSECONDS).whenComplete((value, error) -> {
      long elapsed = System.nanoTime() - start;
      if (error == null) {
        if (bound.breaker()) {
          breaker.onSuccess(elapsed, TimeUnit.NANOSECONDS);
        }
      } else {
        lastError = error;
        if (bound.breaker()) {
          breaker.onError(elapsed, TimeUnit.NANOSECONDS, error);
        }
        listener.failed(error, error instanceof TimeoutException);
      }
      handOver(reply, value, error, replies);
    });
    return reply;
  }

  /**
   * Completes {@code reply} on {@code replies}. If that executor refuses (shut down, or a given
   * one is saturated), the reply fails with the refusal: the caller treats L2 as failed, and
   * nothing is decoded here.
   */
  private static <T> void handOver(CompletableFuture<T> reply, T value, Throwable error,
      Executor replies) {
    try {
      replies.execute(() -> {
        if (error == null) {
          reply.complete(value);
        } else {
          reply.completeExceptionally(error);
        }
      });
    } catch (RejectedExecutionException e) {
      reply.completeExceptionally(e);
    }
  }

  private CompletableFuture<ValkeyConnection<byte[]>> startConnect() {
    nextConnectNanos = System.nanoTime() + RECONNECT_INTERVAL_NANOS;
    return ValkeyConnection.open(endpoint, CODEC, resources, null).whenComplete((c, error) -> {
      connecting.set(false);
      if (c != null) {
        if (closed) {
          c.closeAsync();
        } else {
          connection = c;
          log.info("L2 connected ({})", endpoint);
        }
      }
    });
  }

  private void maybeReconnect() {
    if (!closed && System.nanoTime() - nextConnectNanos >= 0 && connecting.compareAndSet(false, true)) {
      startConnect();
    }
  }

  /**
   * How a command is bounded. A lookup's goes through the breaker, which spares lookups a slow
   * L2's budget once half of them missed it. Background work (filling L2, leases it renews,
   * invalidation) names its own, longer timeout and bypasses the breaker: a pod whose lookups miss
   * the budget (a new pod's JIT warm-up, CPU throttling, a GC pause) is the very pod that must
   * fill its key space, and a background command that L2 answers within its timeout is no
   * reason to stop; one that fails fails on its own, bounded by that timeout.
   */
  private record Bound(long nanos, boolean breaker) {
    static Bound background(Duration timeout) {
      return new Bound(timeout.toNanos(), false);
    }
  }
}
