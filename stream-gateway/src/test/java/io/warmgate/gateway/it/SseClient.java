package io.warmgate.gateway.it;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/** A test client of the gateway: whole streams asynchronously, or a stream read event by event. */
public final class SseClient implements AutoCloseable {

  private static final ObjectMapper JSON = new ObjectMapper();
  private final ExecutorService executor = Executors.newFixedThreadPool(4);
  private final HttpClient http = HttpClient.newBuilder()
      .version(HttpClient.Version.HTTP_1_1)
      .connectTimeout(Duration.ofSeconds(30))
      .executor(executor)
      .build();

  /** The request body {@code {"shared": shared, "perUser": perUser}}. */
  public static String body(Map<String, ?> shared, Map<String, ?> perUser) {
    ObjectNode node = JSON.createObjectNode();
    node.set("shared", JSON.valueToTree(shared));
    node.set("perUser", JSON.valueToTree(perUser));
    return node.toString();
  }

  /** Requests a stream and completes with all its events once the server ends it. */
  public CompletableFuture<List<SseEvent>> stream(int port, String template, String body, String lastEventId) {
    return http.sendAsync(request(port, template, body, lastEventId), HttpResponse.BodyHandlers.ofString())
        .thenApply(response -> {
          if (response.statusCode() != 200) {
            throw new IllegalStateException("status " + response.statusCode() + ": " + response.body());
          }
          return SseEvent.parseAll(response.body());
        });
  }

  /** Sends a plain request and returns status and body. */
  public HttpResponse<String> send(HttpRequest request) throws IOException, InterruptedException {
    return http.send(request, HttpResponse.BodyHandlers.ofString());
  }

  /** Opens a stream to read event by event; close it to disconnect. */
  public Open open(int port, String template, String body, String lastEventId) throws Exception {
    HttpResponse<InputStream> response =
        http.send(request(port, template, body, lastEventId), HttpResponse.BodyHandlers.ofInputStream());
    return new Open(response.body());
  }

  @Override
  public void close() {
    executor.shutdownNow();
  }

  private static HttpRequest request(int port, String template, String body, String lastEventId) {
    HttpRequest.Builder request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/v1/streams/" + template))
        .timeout(Duration.ofMinutes(2))
        .header("Content-Type", "application/json")
        .header("Authorization", "Bearer " + GatewayFleet.STREAM_TOKEN)
        .POST(HttpRequest.BodyPublishers.ofString(body));
    if (lastEventId != null) {
      request.header("Last-Event-ID", lastEventId);
    }
    return request.build();
  }

  /** A stream being read. */
  public static final class Open implements AutoCloseable {
    private final InputStream in;
    private final BufferedReader reader;

    Open(InputStream in) {
      this.in = in;
      this.reader = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8));
    }

    /** Blocks for the next event; null at the end of the stream. */
    public SseEvent next() {
      List<SseEvent> out = new ArrayList<>(1);
      SseEvent.Builder builder = new SseEvent.Builder();
      try {
        String line;
        while ((line = reader.readLine()) != null) {
          builder = builder.line(line, out);
          if (!out.isEmpty()) {
            return out.get(0);
          }
        }
        return null;
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }

    /** Reads the rest of the stream. */
    public List<SseEvent> rest() {
      List<SseEvent> events = new ArrayList<>();
      for (SseEvent e = next(); e != null; e = next()) {
        events.add(e);
      }
      return events;
    }

    @Override
    public void close() throws IOException {
      in.close();
    }
  }
}
