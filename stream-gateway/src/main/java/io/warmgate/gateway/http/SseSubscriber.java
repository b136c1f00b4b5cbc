package io.warmgate.gateway.http;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.vertx.core.Context;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.http.HttpServerResponse;
import io.warmgate.contract.Durations;
import io.warmgate.gateway.metrics.GatewayMetrics;
import io.warmgate.gateway.stream.StreamEntry;
import io.warmgate.gateway.stream.Subscriber;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Writes one client's stream as server-sent events: each chunk is an event whose {@code id} is its
 * {@link EventId} (run and stream entry, so {@code Last-Event-ID} resumes right after it within the
 * same response), then {@code event: done} or {@code event: error} with a JSON {@code data}, then
 * the response ends.
 *
 * <p>Entries at or before the client's last id are skipped; a client resuming with an id of
 * another run (an expired response) gets an error instead of the next response spliced onto the
 * one it had. Writes happen on the request's context, in delivery order.
 *
 * <p><b>Bounded.</b> Nothing is written while the bytes written to the connection and not yet
 * taken by its socket reach {@value #WRITE_QUEUE_BYTES} (so it holds at most that plus one slice):
 * the entries wait as references to the hub's shared ones, and writing resumes once the socket has
 * taken half of them. The subscriber counts those bytes itself, from each write's completion: the
 * response's own {@code writeQueueFull()} let a client that never reads hold three to four times
 * as much (101 to 133 KiB each in {@code SlowClientIT}). A client that leaves its queue full for
 * the slow-client timeout is dropped: an {@code error} event goes into its queue and the
 * connection is closed shortly after, which frees what it held. It may resume elsewhere with
 * {@code Last-Event-ID}.
 */
final class SseSubscriber implements Subscriber {

  /** Most bytes queued to one client before writing stops until it reads. */
  static final int WRITE_QUEUE_BYTES = 32 * 1024;
  /** Events are written in slices of about this many bytes (one event may be larger). */
  private static final int SLICE_BYTES = 8 * 1024;
  /** How long a dropped client's connection stays open for its error event to leave. */
  private static final long CLOSE_GRACE_MILLIS = 1000;
  private static final Logger log = LoggerFactory.getLogger(SseSubscriber.class);
  private static final ObjectMapper JSON = new ObjectMapper();

  private final Context context;
  private final HttpServerRequest request;
  private final HttpServerResponse response;
  private final String template;
  private final JsonNode perUser;
  private final PerUserHook hook;
  private final GatewayMetrics metrics;
  private final Duration slowClientTimeout;
  private final Consumer<SseSubscriber> onLeave;
  private final AtomicBoolean left = new AtomicBoolean();
  /** Batches not yet written, oldest first; each is a list the hub shares with every subscriber. */
  private final ArrayDeque<Batch> pending = new ArrayDeque<>();
  /** The client's resume point; its run is null until the first entry when it did not resume. */
  private EventId after;
  private boolean runChecked;
  private boolean ended;
  private boolean wroteSinceKeepAlive;
  private long slowTimer = -1;
  /** Bytes written to the response whose writes have not completed: held for the client. */
  private long queued;

  SseSubscriber(Context context, HttpServerRequest request, String template, JsonNode perUser,
      PerUserHook hook, GatewayMetrics metrics, EventId after, Duration slowClientTimeout,
      Consumer<SseSubscriber> onLeave) {
    this.context = context;
    this.request = request;
    this.response = request.response();
    this.template = template;
    this.perUser = perUser;
    this.hook = hook;
    this.metrics = metrics;
    this.after = after;
    this.slowClientTimeout = slowClientTimeout;
    this.onLeave = onLeave;
  }

  @Override
  public void deliver(String run, List<StreamEntry> entries, boolean backfill) {
    context.runOnContext(v -> {
      if (!ended) {
        pending.add(new Batch(run, entries, backfill));
        flush();
      }
    });
  }

  @Override
  public void fail(String message) {
    context.runOnContext(v -> {
      if (!ended) {
        send(event(null, "error", errorJson(message)));
        end();
      }
    });
  }

  /** The client went away: nothing more is written. Call on the request's context. */
  void disconnected() {
    ended = true;
    cancelSlowTimer();
    pending.clear();
    leave();
  }

  /**
   * Sends a comment if nothing was written since the last call, so a stream that waits on a quiet
   * upstream outlives the connection idle timeout (and proxies' read timeouts).
   */
  void keepAlive() {
    context.runOnContext(v -> {
      if (!ended && !wroteSinceKeepAlive && !queueFull()) {
        send(": keep-alive\n\n");
      }
      wroteSinceKeepAlive = false;
    });
  }

  /** Writes pending entries in slices until none is left, the stream ended, or the queue is full. */
  private void flush() {
    StringBuilder out = new StringBuilder();
    int backfilled = 0;
    while (!ended && !pending.isEmpty()) {
      if (out.length() >= SLICE_BYTES) {
        write(out);
      }
      if (out.length() == 0 && queueFull()) {
        break;
      }
      Batch batch = pending.peek();
      StreamEntry entry = batch.entries.get(batch.position++);
      if (batch.position == batch.entries.size()) {
        pending.poll();
      }
      if (!runChecked && !checkRun(batch.run, out)) {
        return;
      }
      if (entry.id().isAfter(after.entry())) {
        after = new EventId(batch.run, entry.id());
        if (append(entry, out) && batch.backfill) {
          backfilled++;
        }
      }
      if (entry.terminal() && !ended) {
        write(out);
        end();
      }
    }
    if (backfilled > 0) {
      metrics.backfilled(backfilled);
    }
    if (!ended) {
      write(out);
      // Entries are left only when the queue is full: the client has that long to read.
      if (pending.isEmpty()) {
        cancelSlowTimer();
      } else {
        startSlowTimer();
      }
    }
  }

  /**
   * The first entry names the run: a client resuming from another run's event gets an error,
   * since the runs' entries cannot be matched up. False if the stream ended.
   */
  private boolean checkRun(String run, StringBuilder out) {
    runChecked = true;
    if (after.run().isEmpty()) {
      after = new EventId(run, after.entry());
    } else if (!after.run().equals(run)) {
      out.append(event(null, "error", errorJson("Last-Event-ID " + after + " belongs to an "
          + "earlier response to this request, which has expired: request again without "
          + "Last-Event-ID to receive the current response from its start")));
      write(out);
      end();
      return false;
    }
    return true;
  }

  /** Appends the event of {@code entry}; true if a chunk was sent (not dropped by the hook). */
  private boolean append(StreamEntry entry, StringBuilder out) {
    EventId id = after;
    switch (entry.type()) {
      case CHUNK -> {
        String data;
        try {
          data = hook.apply(template, perUser, entry.event(), entry.data());
        } catch (RuntimeException e) {
          // One user's bad variables must not stall the stream: this client gets an error, the others go on.
          out.append(event(null, "error", errorJson("the per-user hook failed on chunk "
              + entry.index() + " of template " + template + ": " + e)));
          write(out);
          end();
          return false;
        }
        if (data == null) {
          return false;
        }
        out.append(event(id, entry.event(), data));
        return true;
      }
      case DONE -> out.append(event(id, "done", doneJson(entry.index())));
      case ERROR -> out.append(event(id, "error", errorJson(entry.data())));
      default -> throw new IllegalStateException("unknown entry type " + entry.type());
    }
    return false;
  }

  private void write(StringBuilder out) {
    if (out.length() > 0 && !ended) {
      send(out.toString());
      wroteSinceKeepAlive = true;
      out.setLength(0);
    }
  }

  /**
   * Writes {@code text} to the client, counted as queued (here and in the gateway's gauge) until
   * its write completes: the socket took it, or the connection failed it.
   */
  private void send(String text) {
    Buffer bytes = Buffer.buffer(text);
    int length = bytes.length();
    queued += length;
    metrics.queued(length);
    response.write(bytes).onComplete(done -> taken(length));
  }

  private boolean queueFull() {
    return queued >= WRITE_QUEUE_BYTES;
  }

  /** A write completed (on the request's context): once half the queue is taken, write more. */
  private void taken(int length) {
    if (left.get()) {
      return; // its queued bytes were given back when it left
    }
    queued -= length;
    metrics.dequeued(length);
    if (!ended && !pending.isEmpty() && queued <= WRITE_QUEUE_BYTES / 2) {
      cancelSlowTimer();
      flush();
    }
  }

  private void startSlowTimer() {
    if (slowTimer < 0) {
      slowTimer = context.owner().setTimer(Math.max(1, slowClientTimeout.toMillis()), id -> {
        slowTimer = -1;
        drop();
      });
    }
  }

  private void cancelSlowTimer() {
    if (slowTimer >= 0) {
      context.owner().cancelTimer(slowTimer);
      slowTimer = -1;
    }
  }

  /** The client left its write queue full for the slow-client timeout: drop it. */
  private void drop() {
    if (ended) {
      return;
    }
    metrics.slowClientDropped();
    log.debug("dropping a client of template {} that read nothing for {}", template, slowClientTimeout);
    pending.clear();
    send(event(null, "error", errorJson("this client read the stream too slowly: "
        + "nothing was read for " + Durations.format(slowClientTimeout)
        + " while the gateway held the most it holds per client; resume with Last-Event-ID")));
    end();
    // Its queue is full, so the event may never leave: closing frees what the connection holds.
    context.owner().setTimer(CLOSE_GRACE_MILLIS, id -> request.connection().close());
  }

  private void end() {
    ended = true;
    cancelSlowTimer();
    pending.clear();
    response.end();
    leave();
  }

  /** Runs {@code onLeave} once, whether the stream ended or the client disconnected first. */
  private void leave() {
    if (left.compareAndSet(false, true)) {
      // What is still queued goes with the connection, whose close may never complete the writes.
      metrics.dequeued(queued);
      queued = 0;
      onLeave.accept(this);
    }
  }

  /** One SSE event; every line of {@code data} becomes its own {@code data:} line. */
  static String event(EventId id, String event, String data) {
    StringBuilder out = new StringBuilder();
    if (id != null) {
      out.append("id: ").append(id).append('\n');
    }
    if (!event.isEmpty()) {
      out.append("event: ").append(event).append('\n');
    }
    for (String line : data.split("\r\n|\r|\n", -1)) {
      out.append("data: ").append(line).append('\n');
    }
    return out.append('\n').toString();
  }

  private static String doneJson(long chunks) {
    return json(JSON.createObjectNode().put("chunks", chunks));
  }

  static String errorJson(String message) {
    return json(JSON.createObjectNode().put("error", message));
  }

  private static String json(JsonNode node) {
    try {
      return JSON.writeValueAsString(node);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("a Jackson tree always serializes", e);
    }
  }

  /** Entries of one delivery and how far they have been written. */
  private static final class Batch {
    final String run;
    final List<StreamEntry> entries;
    final boolean backfill;
    int position;

    Batch(String run, List<StreamEntry> entries, boolean backfill) {
      this.run = run;
      this.entries = entries;
      this.backfill = backfill;
    }
  }
}
