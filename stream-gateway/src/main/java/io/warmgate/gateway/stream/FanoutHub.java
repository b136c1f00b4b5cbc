package io.warmgate.gateway.stream;

import com.fasterxml.jackson.databind.JsonNode;
import io.lettuce.core.StreamMessage;
import io.lettuce.core.XReadArgs;
import io.lettuce.core.api.StatefulRedisConnection;
import io.warmgate.gateway.key.CoalescingKey;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reads one key's run from Valkey for every subscriber of this pod: one {@code XREAD BLOCK} loop
 * on a dedicated connection, whatever the number of clients, keeping the entries read so far for
 * late subscribers (backfill).
 *
 * <p>Lifecycle: join the key's run (or start one, producing it in this pod), read from the first
 * entry until the terminal one, deliver it, close. Each read that finds nothing for
 * {@code min(lockTtl / 2, 1s)} checks whether the run's producer is gone and, if so, takes the run
 * over (see {@link Producer} for the takeover rule). The hub also closes when its last subscriber
 * leaves; the upstream call goes on without it.
 *
 * <p>The dedicated connection goes to the primary that holds the key's slot. When a read fails
 * because that node went away or, on a cluster, the slot moved to another primary ({@code MOVED},
 * {@code ASK}) or is failing over, the hub reads the topology again, connects to the slot's primary
 * now and goes on from the last entry it read; it gives up with an error to its subscribers only
 * when that keeps failing for as long as the run's keys outlive their producer (three lock TTLs,
 * at least {@link #MIN_RECOVERY}).
 */
final class FanoutHub {

  private static final Logger log = LoggerFactory.getLogger(FanoutHub.class);
  private static final int READ_COUNT = 256;
  private static final int MAX_BUSY_RETRIES = 100;
  /** Shortest time a hub keeps trying to read again: a cluster failover takes seconds. */
  static final Duration MIN_RECOVERY = Duration.ofSeconds(10);
  private static final long MAX_RECOVERY_DELAY_MILLIS = 1000;

  private final Coalescer coalescer;
  private final CoalescingKey key;
  private final StreamKeys keys;
  private final JsonNode shared;
  private final long blockMillis;
  private final long recoveryNanos;
  private final List<StreamEntry> entries = new ArrayList<>();
  /** An immutable copy of {@code entries}, shared by the subscribers joining until the next read. */
  private List<StreamEntry> backfill = List.of();
  private final Set<Subscriber> subscribers = new LinkedHashSet<>();
  private boolean started;
  private boolean closed;
  private boolean terminal;
  private boolean caughtUp;
  private String run;
  private EntryId lastId = EntryId.ZERO;
  private int busyRetries;
  /** Failed attempts to read since the last successful read, and when the first one failed. */
  private int recoveryAttempts;
  private long recoveringSinceNanos;
  private StatefulRedisConnection<String, String> connection;

  FanoutHub(Coalescer coalescer, CoalescingKey key, JsonNode shared) {
    this.coalescer = coalescer;
    this.key = key;
    this.keys = StreamKeys.of(key);
    this.shared = shared;
    this.blockMillis = Math.max(10, Math.min(1000, coalescer.settings().lockTtl().toMillis() / 2));
    this.recoveryNanos = Math.max(MIN_RECOVERY.toNanos(),
        coalescer.settings().lockTtl().multipliedBy(3).toNanos());
  }

  /** Starts joining and reading, once. */
  void startOnce() {
    synchronized (this) {
      if (started) {
        return;
      }
      started = true;
    }
    // Any key of the coalescing key will do: they share one slot, the stream's included.
    coalescer.valkey().connectToPrimaryOf(keys.state()).whenComplete((conn, error) -> {
      if (error != null) {
        failAll("cannot connect to Valkey to read the shared response: " + error.getMessage());
      } else if (adopt(conn)) {
        join();
      }
    });
  }

  /** Makes {@code conn} the reading connection; false (and closed) if the hub closed meanwhile. */
  private boolean adopt(StatefulRedisConnection<String, String> conn) {
    synchronized (this) {
      if (!closed) {
        connection = conn;
        return true;
      }
    }
    conn.closeAsync();
    return false;
  }

  /**
   * Adds a subscriber and hands it the entries read so far.
   *
   * @return false if this hub already closed; the caller uses a new one
   */
  synchronized boolean add(Subscriber subscriber) {
    if (closed && !terminal) {
      return false;
    }
    if (!entries.isEmpty()) {
      if (backfill.size() != entries.size()) {
        backfill = List.copyOf(entries);
      }
      subscriber.deliver(run, backfill, true);
    }
    if (!terminal) {
      subscribers.add(subscriber);
    }
    return true;
  }

  /** Removes a subscriber; closes the hub when it was the last one. */
  void remove(Subscriber subscriber) {
    boolean last;
    synchronized (this) {
      last = subscribers.remove(subscriber) && subscribers.isEmpty() && !terminal;
    }
    if (last) {
      close();
    }
  }

  /** Stops reading; subscribers still connected get nothing more. */
  void close() {
    StatefulRedisConnection<String, String> conn;
    synchronized (this) {
      if (closed) {
        return;
      }
      closed = true;
      conn = connection;
    }
    release(conn);
  }

  private void release(StatefulRedisConnection<String, String> conn) {
    coalescer.hubDone(key, this);
    if (conn != null) {
      conn.closeAsync();
    }
  }

  private void join() {
    String newRun = Coalescer.randomHex(8);
    coalescer.store().join(keys, newRun, coalescer.token()).whenComplete((joined, error) -> {
      if (error != null) {
        failAll("cannot join the shared response in Valkey: " + error.getMessage());
      } else if (joined.busy()) {
        // Another pod holds the lock but the run's state is not visible yet: a start in progress.
        if (++busyRetries > MAX_BUSY_RETRIES) {
          failAll("the shared response stayed locked without a run for " + MAX_BUSY_RETRIES
              + " attempts; check Valkey for a stale " + keys.lock());
        } else {
          coalescer.scheduler().schedule(this::join, 20, TimeUnit.MILLISECONDS);
        }
      } else {
        synchronized (this) {
          run = joined.run();
        }
        if (joined.producer()) {
          coalescer.startProducer(key, shared, joined.run(), 0);
        }
        read();
      }
    });
  }

  /**
   * Reads the next entries. The first read after joining does not block and takes everything
   * already in the stream: those entries are backfill for every subscriber; later reads block.
   */
  private void read() {
    StatefulRedisConnection<String, String> conn;
    String stream;
    String from;
    boolean catchUp;
    synchronized (this) {
      if (closed) {
        return;
      }
      conn = connection;
      stream = keys.stream(run);
      from = lastId.toString();
      catchUp = !caughtUp;
      caughtUp = true;
    }
    XReadArgs args = catchUp
        ? XReadArgs.Builder.count(coalescer.settings().streamCap() + 1L)
        : XReadArgs.Builder.block(blockMillis).count(READ_COUNT);
    conn.async()
        .xread(args, XReadArgs.StreamOffset.from(stream, from))
        .whenComplete((messages, error) -> {
          if (isClosed()) {
            return;
          }
          if (error != null) {
            if (catchUp) {
              synchronized (this) {
                caughtUp = false;  // the entries so far are still backfill when read again
              }
            }
            recover("lost Valkey while reading the shared response", error);
            return;
          }
          readSucceeded();
          if (messages == null || messages.isEmpty()) {
            if (catchUp) {
              read();
            } else {
              checkProducer();
            }
          } else if (onMessages(messages, catchUp)) {
            read();
          }
        });
  }

  /** Stores and delivers new entries; false once the terminal entry was seen. */
  private boolean onMessages(List<StreamMessage<String, String>> messages, boolean backfill) {
    List<StreamEntry> batch = new ArrayList<>(messages.size());
    try {
      for (StreamMessage<String, String> message : messages) {
        batch.add(StreamEntry.decode(message.getId(), message.getBody()));
      }
    } catch (RuntimeException e) {
      failAll("the shared response in Valkey is malformed: " + e.getMessage());
      return false;
    }
    synchronized (this) {
      for (StreamEntry entry : batch) {
        if (terminal) {
          break;
        }
        entries.add(entry);
        lastId = entry.id();
        terminal = entry.terminal();
      }
      for (Subscriber subscriber : subscribers) {
        subscriber.deliver(run, batch, backfill);
      }
      if (!terminal) {
        return true;
      }
      subscribers.clear();
    }
    close();
    return false;
  }

  /** Nothing new for a while: is the producer still alive? If not, take over. */
  private void checkProducer() {
    String current;
    synchronized (this) {
      current = run;
    }
    coalescer.store().takeover(keys, current, coalescer.token()).whenComplete((result, error) -> {
      if (isClosed()) {
        return;
      }
      if (error != null) {
        recover("lost Valkey while watching the shared response", error);
        return;
      }
      switch (result.outcome()) {
        case ACQUIRED -> {
          log.info("taking over {} run {} from chunk {}: its producer's lock expired",
              key, current, result.nextIndex());
          coalescer.metrics().takeover();
          coalescer.startProducer(key, shared, current, result.nextIndex());
          read();
        }
        case HELD, TERMINAL -> read();
        case GONE -> {
          boolean empty;
          synchronized (this) {
            empty = entries.isEmpty();
          }
          if (empty) {
            synchronized (this) {
              caughtUp = false;
            }
            join();  // a snapshot expired between join and read, or a failed run was replaced
          } else {
            failAll("the shared response expired before it completed; retry the request");
          }
        }
        default -> throw new IllegalStateException("unknown takeover outcome " + result.outcome());
      }
    });
  }

  private synchronized void readSucceeded() {
    recoveryAttempts = 0;
  }

  /**
   * A read failed: drops the reading connection and, after a pause growing with each failure,
   * connects to the primary that holds the key's slot according to a fresh look at the topology,
   * then reads on from the last entry. Fails every subscriber with {@code what} once the failures
   * have lasted the recovery time.
   */
  private void recover(String what, Throwable error) {
    StatefulRedisConnection<String, String> lost;
    int attempt;
    long failingNanos;
    synchronized (this) {
      if (closed) {
        return;
      }
      lost = connection;
      connection = null;
      if (recoveryAttempts++ == 0) {
        recoveringSinceNanos = System.nanoTime();
      }
      attempt = recoveryAttempts;
      failingNanos = System.nanoTime() - recoveringSinceNanos;
    }
    if (lost != null) {
      lost.closeAsync();
    }
    if (failingNanos > recoveryNanos) {
      failAll(what + ": " + error.getMessage());
      return;
    }
    if (attempt == 1) {
      log.info("{}: {} ({}); connecting again to the primary of its slot", key, what, error.toString());
    }
    long delay = Math.min(MAX_RECOVERY_DELAY_MILLIS, 50L << Math.min(attempt - 1, 5));
    try {
      coalescer.scheduler().schedule(() -> reconnect(what), delay, TimeUnit.MILLISECONDS);
    } catch (RejectedExecutionException stopping) {
      failAll(what + ": " + error.getMessage());
    }
  }

  private void reconnect(String what) {
    if (isClosed()) {
      return;
    }
    coalescer.valkey().refreshTopology()
        .handle((refreshed, error) -> null)  // without a fresh view, the current one may still do
        .thenCompose(ignored -> coalescer.valkey().connectToPrimaryOf(keys.state()))
        .whenComplete((conn, error) -> {
          if (error != null) {
            recover(what, error);
          } else if (adopt(conn)) {
            read();
          }
        });
  }

  private synchronized boolean isClosed() {
    return closed;
  }

  private void failAll(String message) {
    List<Subscriber> failed;
    StatefulRedisConnection<String, String> conn;
    synchronized (this) {
      if (closed) {
        return;
      }
      closed = true;
      conn = connection;
      failed = List.copyOf(subscribers);
      subscribers.clear();
    }
    log.warn("{}: {}", key, message);
    failed.forEach(s -> s.fail(message));
    release(conn);
  }
}
