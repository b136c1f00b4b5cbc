package io.warmgate.agent.invalidate;

import io.lettuce.core.RedisException;
import io.lettuce.core.api.StatefulRedisConnection;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.warmgate.agent.l2.KeySpace;
import io.warmgate.valkey.ValkeyConnection;
import java.time.Duration;
import java.time.InstantSource;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reads the cache's invalidation stream on a connection of its own ({@code XREAD BLOCK}) and drops
 * each entry's ids from this pod's in-process tier.
 *
 * <p>The bound it keeps: while it reads, an invalidated id leaves this pod's L1 within one round
 * trip of the entry's append. When it cannot know what it missed, it drops the whole L1 as soon
 * as it reads the stream again: when it first connects (lookups may have filled L1 before), when
 * an entry's number does not follow the last one read, and after an interruption if entries it
 * had not read were trimmed or the counter went back (a Valkey restarted without persistence, a
 * failover that lost the newest appends). While Valkey cannot be reached, L1 values stay until their TTL ({@code l1Ttl}),
 * as without invalidation: dropping them then would send every lookup to the origin while L2 is
 * down.
 */
public final class InvalidationListener implements AutoCloseable {

  private static final Logger log = LoggerFactory.getLogger(InvalidationListener.class);
  /** How long one {@code XREAD} waits for entries; below the connection's command timeout. */
  static final Duration BLOCK = Duration.ofSeconds(1);
  /** Entries read per call. */
  static final int BATCH = 1_000;
  private static final long MAX_BACKOFF_MILLIS = 2_000;

  private final ValkeyConnection<String> valkey;
  private final InvalidationLog stream;
  private final LocalTier local;
  private final InstantSource clock;
  private final String cacheName;
  private final Counter ids;
  private final Counter resyncs;
  private final Timer lag;
  private final Thread reader;
  private volatile boolean running = true;
  private volatile StatefulRedisConnection<String, String> connection;
  private volatile StreamId lastRead;
  private long lastSeq;

  /**
   * Starts reading in a daemon thread of its own.
   *
   * @param valkey the fleet services' connection, which opens the reader's own
   */
  public InvalidationListener(ValkeyConnection<String> valkey, KeySpace keys, LocalTier local,
      InstantSource clock, MeterRegistry meters) {
    this.valkey = Objects.requireNonNull(valkey, "valkey");
    this.stream = new InvalidationLog(keys);
    this.local = Objects.requireNonNull(local, "local");
    this.clock = Objects.requireNonNull(clock, "clock");
    this.cacheName = keys.cacheName();
    this.ids = Counter.builder("warmgate.invalidation.ids")
        .description("Ids dropped from L1 by invalidations read from the stream")
        .tag("cache", cacheName).register(meters);
    this.resyncs = Counter.builder("warmgate.invalidation.resyncs")
        .description("Times L1 was dropped whole because invalidations may have been missed")
        .tag("cache", cacheName).register(meters);
    this.lag = Timer.builder("warmgate.invalidation.lag")
        .description("From an invalidation's append to this pod dropping its ids")
        .tag("cache", cacheName).register(meters);
    this.reader = new Thread(this::run, "warmgate-" + cacheName + "-invalidations");
    reader.setDaemon(true);
    reader.start();
  }

  private void run() {
    long backoff = 100;
    boolean failing = false;
    while (running) {
      try {
        StatefulRedisConnection<String, String> c = connection;
        if (c == null) {
          c = connect();
          resync(c);
        }
        List<InvalidationLog.Entry> entries = stream.readAfter(c.sync(), lastRead, BLOCK, BATCH);
        for (InvalidationLog.Entry entry : entries) {
          apply(entry);
        }
        if (failing) {
          log.info("cache '{}': invalidation stream read again", cacheName);
          failing = false;
        }
        backoff = 100;
      } catch (RedisException | ExecutionException | TimeoutException e) {
        if (!running) {
          return;
        }
        if (!failing) {
          log.warn("cache '{}': cannot read the invalidation stream, retrying: {}", cacheName,
              e.toString());
          failing = true;
        }
        closeConnection();
        valkey.refreshTopology();
        sleep(backoff);
        backoff = Math.min(MAX_BACKOFF_MILLIS, backoff * 2);
      } catch (InterruptedException e) {
        return;
      } catch (RuntimeException e) {
        if (!failing) {
          log.error("cache '{}': invalidation listener failed, restarting it", cacheName, e);
          failing = true;
        }
        closeConnection();
        sleep(backoff);
        backoff = Math.min(MAX_BACKOFF_MILLIS, backoff * 2);
      }
    }
  }

  private StatefulRedisConnection<String, String> connect()
      throws ExecutionException, TimeoutException, InterruptedException {
    StatefulRedisConnection<String, String> c = valkey.connectToPrimaryOf(stream.key())
        .get(ValkeyConnection.CONNECT_TIMEOUT.toMillis() * 2, TimeUnit.MILLISECONDS);
    connection = c;
    if (!running) {
      closeConnection();
      throw new InterruptedException("closed");
    }
    return c;
  }

  /** Decides where to read from after (re)connecting, dropping L1 if appends may be missed. */
  private void resync(StatefulRedisConnection<String, String> c) {
    InvalidationLog.State state = stream.state(c.sync());
    if (lastRead == null) {
      dropAll(state.lastId(), state.seq(),
          "lookups may have filled L1 before the listener read the stream");
    } else if (state.lostAfter(lastSeq) || state.lastId().compareTo(lastRead) < 0) {
      // The second test: a stream that now ends before the last entry read was written anew,
      // by a node whose clock is behind, and its entries would never be read after lastRead.
      dropAll(state.lastId(), state.seq(), "appends after number " + lastSeq + " (entry "
          + lastRead + ") can no longer be read: counter " + state.seq() + ", oldest kept "
          + state.firstSeq() + ", newest entry " + state.lastId());
    }
  }

  private void apply(InvalidationLog.Entry entry) {
    if (entry.ids() == null || entry.seq() != lastSeq + 1) {
      dropAll(entry.id(), Math.max(entry.seq(), lastSeq), entry.ids() == null
          ? "entry " + entry.id() + " of the stream cannot be read"
          : "entry " + entry.id() + " is number " + entry.seq() + ", not " + (lastSeq + 1));
      return;
    }
    local.dropLocal(entry.ids());
    lastRead = entry.id();
    lastSeq = entry.seq();
    ids.increment(entry.ids().size());
    if (entry.atMillis() > 0) {
      lag.record(Math.max(0, clock.millis() - entry.atMillis()), TimeUnit.MILLISECONDS);
    }
  }

  private void dropAll(StreamId resumeAfter, long seq, String why) {
    boolean first = lastRead == null;
    local.dropAllLocal();
    lastRead = resumeAfter;
    lastSeq = seq;
    if (!first) {
      resyncs.increment();
      log.info("cache '{}': dropped L1 whole: {}", cacheName, why);
    }
  }

  /** The id of the last entry applied, or null before the first read. For tests. */
  StreamId lastRead() {
    return lastRead;
  }

  private void closeConnection() {
    StatefulRedisConnection<String, String> c = connection;
    connection = null;
    if (c != null) {
      c.closeAsync();
    }
  }

  private static void sleep(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /** Stops reading and closes the reader's connection; waits up to two seconds for the thread. */
  @Override
  public void close() {
    running = false;
    closeConnection();
    reader.interrupt();
    try {
      reader.join(2_000);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
