package io.warmgate.gateway.http;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.vertx.core.Context;
import io.vertx.core.http.HttpServerResponse;
import io.warmgate.gateway.metrics.GatewayMetrics;
import io.warmgate.gateway.stream.EntryId;
import io.warmgate.gateway.stream.StreamEntry;
import io.warmgate.gateway.stream.Subscriber;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;

/**
 * Writes one client's stream as server-sent events: each chunk is an event whose {@code id} is its
 * stream entry id (so {@code Last-Event-ID} resumes right after it), then {@code event: done} or
 * {@code event: error} with a JSON {@code data}, then the response ends.
 *
 * <p>Entries at or before the client's last id are skipped. Writes happen on the request's
 * context, in delivery order.
 */
final class SseSubscriber implements Subscriber {

  private static final ObjectMapper JSON = new ObjectMapper();

  private final Context context;
  private final HttpServerResponse response;
  private final String template;
  private final JsonNode perUser;
  private final PerUserHook hook;
  private final GatewayMetrics metrics;
  private final Consumer<SseSubscriber> onLeave;
  private final AtomicBoolean left = new AtomicBoolean();
  private EntryId after;
  private boolean ended;

  SseSubscriber(Context context, HttpServerResponse response, String template, JsonNode perUser,
      PerUserHook hook, GatewayMetrics metrics, EntryId after, Consumer<SseSubscriber> onLeave) {
    this.context = context;
    this.response = response;
    this.template = template;
    this.perUser = perUser;
    this.hook = hook;
    this.metrics = metrics;
    this.after = after;
    this.onLeave = onLeave;
  }

  @Override
  public void deliver(List<StreamEntry> entries, boolean backfill) {
    context.runOnContext(v -> write(entries, backfill));
  }

  @Override
  public void fail(String message) {
    context.runOnContext(v -> {
      if (!ended) {
        response.write(event(null, "error", errorJson(message)));
        end();
      }
    });
  }

  /** The client went away: nothing more is written. Call on the request's context. */
  void disconnected() {
    ended = true;
    leave();
  }

  private void write(List<StreamEntry> entries, boolean backfill) {
    if (ended) {
      return;
    }
    StringBuilder out = new StringBuilder();
    int written = 0;
    boolean terminal = false;
    for (StreamEntry entry : entries) {
      if (terminal) {
        break;
      }
      terminal = entry.terminal();
      if (!entry.id().isAfter(after)) {
        continue;
      }
      after = entry.id();
      switch (entry.type()) {
        case CHUNK -> {
          String data;
          try {
            data = hook.apply(template, perUser, entry.event(), entry.data());
          } catch (RuntimeException e) {
            // One user's bad variables must not stall the stream: this client gets an error, the others go on.
            out.append(event(null, "error", errorJson("the per-user hook failed on chunk "
                + entry.index() + " of template " + template + ": " + e)));
            response.write(out.toString());
            end();
            return;
          }
          if (data != null) {
            out.append(event(entry.id(), entry.event(), data));
            written++;
          }
        }
        case DONE -> out.append(event(entry.id(), "done", doneJson(entry.index())));
        case ERROR -> out.append(event(entry.id(), "error", errorJson(entry.data())));
        default -> throw new IllegalStateException("unknown entry type " + entry.type());
      }
    }
    if (backfill && written > 0) {
      metrics.backfilled(written);
    }
    if (out.length() > 0) {
      response.write(out.toString());
    }
    if (terminal) {
      end();
    }
  }

  private void end() {
    ended = true;
    response.end();
    leave();
  }

  /** Runs {@code onLeave} once, whether the stream ended or the client disconnected first. */
  private void leave() {
    if (left.compareAndSet(false, true)) {
      onLeave.accept(this);
    }
  }

  /** One SSE event; every line of {@code data} becomes its own {@code data:} line. */
  static String event(EntryId id, String event, String data) {
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
}
