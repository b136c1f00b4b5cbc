package io.warmgate.gateway.stream;

import com.fasterxml.jackson.databind.JsonNode;
import io.warmgate.valkey.ValkeyConnection;
import io.warmgate.gateway.key.CoalescingKey;
import io.warmgate.gateway.metrics.GatewayMetrics;
import io.warmgate.gateway.upstream.UpstreamClient;
import io.warmgate.gateway.validate.ResponseValidator;
import java.time.Duration;
import java.util.HexFormat;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * One pod's coalescing engine: at most one {@link FanoutHub} (stream reader) and at most one
 * {@link Producer} (upstream call) per coalescing key in this process, whatever the number of
 * clients; across pods, the Valkey lock of {@link RunStore} leaves one producer per key.
 *
 * <p>Bounded: a key this process does not read yet is admitted only while fewer than
 * {@code maxKeys} hubs (each holding a Valkey connection) and fewer than {@code maxKeys} producers
 * (each holding an upstream call, which may outlive its hub) run; otherwise
 * {@link #subscribe} refuses it and the caller answers 429. Clients of a key already read are
 * always admitted: they cost neither a connection nor a call.
 *
 * <p>Thread-safe. {@link #close()} stops everything; so does {@link #kill()}, which is what a
 * crash looks like to the other pods: nothing is released, locks simply expire.
 */
public final class Coalescer implements AutoCloseable {

  /** What hubs and producers share. */
  record Settings(Duration lockTtl, int streamCap, Duration resultTtl, Duration burstResultTtl) {}

  private final ValkeyConnection<String> valkey;
  private final RunStore store;
  private final UpstreamClient upstream;
  private final ResponseValidator validator;
  private final GatewayMetrics metrics;
  private final ScheduledExecutorService scheduler;
  private final Settings settings;
  private final String token;
  private final int maxKeys;
  /** Hubs created and not yet closed; may briefly exceed {@code hubs.size()} while one closes. */
  private final AtomicInteger openHubs = new AtomicInteger();
  private final Map<CoalescingKey, FanoutHub> hubs = new ConcurrentHashMap<>();
  /** Keyed by run, not by key: a finishing run's producer never blocks the next run's. */
  private final Map<String, Producer> producers = new ConcurrentHashMap<>();

  /**
   * Creates an engine.
   *
   * @param valkey opens each hub's dedicated connection (a blocking {@code XREAD} holds it) to the
   *     primary of its key; {@code store} runs on its shared one
   * @param podName goes into this process's lock token, with a random suffix
   * @param maxKeys most keys read and most upstream calls run at once by this process
   */
  public Coalescer(ValkeyConnection<String> valkey, RunStore store, UpstreamClient upstream,
      ResponseValidator validator, GatewayMetrics metrics, ScheduledExecutorService scheduler,
      Duration lockTtl, int streamCap, Duration resultTtl, Duration burstResultTtl, String podName,
      int maxKeys) {
    this.valkey = valkey;
    this.store = store;
    this.upstream = upstream;
    this.validator = validator;
    this.metrics = metrics;
    this.scheduler = scheduler;
    this.settings = new Settings(lockTtl, streamCap, resultTtl, burstResultTtl);
    this.token = podName + ":" + randomHex(8);
    this.maxKeys = maxKeys;
  }

  /**
   * Adds {@code subscriber} to {@code key}'s stream: it first gets the entries so far, then live
   * ones. Starts this pod's reader, and the upstream call if no pod runs one, as needed.
   *
   * @return false, with nothing started, if {@code key} is not read here yet and this process
   *     already reads or produces its most keys; the caller refuses the request (429)
   */
  public boolean subscribe(CoalescingKey key, JsonNode shared, Subscriber subscriber) {
    while (true) {
      FanoutHub hub = hubs.computeIfAbsent(key, k -> admitKey() ? new FanoutHub(this, k, shared) : null);
      if (hub == null) {
        return false;
      }
      if (hub.add(subscriber)) {
        hub.startOnce();  // after add: a failure to start reaches this subscriber
        return true;
      }
      hubs.remove(key, hub);  // it closed after its last subscriber left; a fresh one takes over
    }
  }

  /** Takes a hub slot if both hubs and producers are below the cap. */
  private boolean admitKey() {
    if (producers.size() >= maxKeys) {
      return false;
    }
    while (true) {
      int open = openHubs.get();
      if (open >= maxKeys) {
        return false;
      }
      if (openHubs.compareAndSet(open, open + 1)) {
        return true;
      }
    }
  }

  /** Removes {@code subscriber}; the upstream call, if any, goes on for the others and the snapshot. */
  public void unsubscribe(CoalescingKey key, Subscriber subscriber) {
    FanoutHub hub = hubs.get(key);
    if (hub != null) {
      hub.remove(subscriber);
    }
  }

  /** The number of keys this process reads now. */
  public int activeHubs() {
    return hubs.size();
  }

  /** The number of upstream calls this process runs now. */
  public int activeProducers() {
    return producers.size();
  }

  /** Stops reading and aborts this process's upstream calls without writing anything more. */
  public void kill() {
    producers.values().forEach(Producer::abort);
    hubs.values().forEach(FanoutHub::close);
  }

  /**
   * Stops like {@link #kill()}, but first gives up this process's upstream locks, so other pods
   * take its runs over at once (bounded by {@code timeout}) instead of after the lock TTL.
   */
  public void close(Duration timeout) {
    CompletableFuture<?>[] handovers = producers.values().stream().map(Producer::handOver)
        .toArray(CompletableFuture[]::new);
    try {
      CompletableFuture.allOf(handovers).get(timeout.toMillis(), java.util.concurrent.TimeUnit.MILLISECONDS);
    } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException e) {
      // the locks that were not released expire by themselves
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    kill();
  }

  /** {@link #close(Duration)} with two seconds. */
  @Override
  public void close() {
    close(Duration.ofSeconds(2));
  }

  void startProducer(CoalescingKey key, JsonNode shared, String run, long skip) {
    Producer producer = new Producer(this, key, shared, run, skip);
    if (producers.putIfAbsent(producerId(key, run), producer) == null) {
      producer.start();
    }
  }

  void producerDone(CoalescingKey key, String run, Producer producer) {
    producers.remove(producerId(key, run), producer);
  }

  private static String producerId(CoalescingKey key, String run) {
    return key.hex() + ":" + run;
  }

  /** Called once per hub when it closes: frees its slot. */
  void hubDone(CoalescingKey key, FanoutHub hub) {
    hubs.remove(key, hub);
    openHubs.decrementAndGet();
  }

  ValkeyConnection<String> valkey() { return valkey; }
  RunStore store() { return store; }
  UpstreamClient upstream() { return upstream; }
  ResponseValidator validator() { return validator; }
  GatewayMetrics metrics() { return metrics; }
  ScheduledExecutorService scheduler() { return scheduler; }
  Settings settings() { return settings; }
  String token() { return token; }

  static String randomHex(int bytes) {
    byte[] random = new byte[bytes];
    ThreadLocalRandom.current().nextBytes(random);
    return HexFormat.of().formatHex(random);
  }
}
