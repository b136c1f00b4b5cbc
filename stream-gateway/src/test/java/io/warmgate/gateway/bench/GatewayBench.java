package io.warmgate.gateway.bench;

import io.warmgate.gateway.it.GatewayFleet;
import io.warmgate.gateway.it.SseClient;
import io.warmgate.gateway.it.SseEvent;
import io.warmgate.gateway.it.TestUpstream;
import io.warmgate.testing.RedisServer;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.IntFunction;

/**
 * A push-like burst: {@code clients} identical requests arriving over {@code window}, against an
 * upstream that can generate only {@code concurrency} responses at once (like a GPU-bound model
 * server). Measured once with every client calling the upstream directly (no coalescing) and once
 * through three gateways; prints and writes upstream calls and the p50/p99 time until a client
 * has its complete response.
 *
 * <p>Arguments: {@code [--quick] [--out DIR]}.
 */
public final class GatewayBench {

  private record Settings(int clients, Duration window, int chunks, Duration chunkInterval, int concurrency) {}

  private record Result(String name, int upstreamCalls, long[] millis, int complete) {
    long percentile(double p) {
      long[] sorted = millis.clone();
      Arrays.sort(sorted);
      return sorted[Math.min(sorted.length - 1, (int) Math.ceil(p * sorted.length) - 1)];
    }
  }

  private GatewayBench() {}

  /** Runs the benchmark; see the class comment for the arguments. */
  public static void main(String[] args) throws Exception {
    boolean quick = Arrays.asList(args).contains("--quick");
    int outIndex = Arrays.asList(args).indexOf("--out");
    Path out = Path.of(outIndex >= 0 ? args[outIndex + 1] : "stream-gateway/target/bench");
    Settings settings = quick
        ? new Settings(200, Duration.ofMillis(500), 10, Duration.ofMillis(20), 8)
        : new Settings(700, Duration.ofSeconds(2), 20, Duration.ofMillis(25), 8);

    RedisServer redis = RedisServer.create();
    redis.start();
    try (TestUpstream upstream = TestUpstream.withConcurrency(settings.concurrency());
        SseClient gatewayClient = new SseClient()) {
      upstream.script("daily", TestUpstream.Script.chunks(settings.chunks(), settings.chunkInterval()));
      upstream.script("daily-no-flag", TestUpstream.Script.chunks(settings.chunks(), settings.chunkInterval()));
      String body = SseClient.body(Map.of("prompt", "daily-recommendation"), Map.of("locale", "en"));

      HttpClient direct = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
          .executor(Executors.newFixedThreadPool(4)).build();
      Result baseline = burst("without coalescing", settings, upstream, "daily", i -> direct.sendAsync(
          HttpRequest.newBuilder(URI.create(upstream.url("daily"))).timeout(Duration.ofMinutes(5))
              .header("Content-Type", "application/json")
              .POST(HttpRequest.BodyPublishers.ofString(body)).build(),
          HttpResponse.BodyHandlers.ofString()).thenApply(r -> SseEvent.parseAll(r.body()).size() == settings.chunks()));

      Map<String, String> env = GatewayFleet.env(redis.host() + ":" + redis.port(), upstream);
      try (GatewayFleet fleet = GatewayFleet.start(3, env)) {
        Result noFlag = burst("coalesced, 3 gateways, no burst flag", settings, upstream, "daily-no-flag",
            i -> gatewayClient.stream(fleet.port(i % 3), "daily-no-flag", body, null)
                .thenApply(events -> complete(events, settings)));
        // The push sender raises the burst flag before sending the push.
        direct.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + fleet.port(0) + "/v1/burst/daily?ttl=2m"))
            .header("Authorization", "Bearer " + GatewayFleet.BURST_TOKEN)
            .PUT(HttpRequest.BodyPublishers.noBody()).build(), HttpResponse.BodyHandlers.discarding());
        Result flag = burst("coalesced, 3 gateways, burst flag up", settings, upstream, "daily",
            i -> gatewayClient.stream(fleet.port(i % 3), "daily", body, null)
                .thenApply(events -> complete(events, settings)));
        report(out, quick, settings, List.of(baseline, noFlag, flag));
      }
      direct.executor().ifPresent(e -> ((java.util.concurrent.ExecutorService) e).shutdownNow());
    } finally {
      redis.close();
    }
  }

  private static boolean complete(List<SseEvent> events, Settings settings) {
    return events.size() == settings.chunks() + 1 && events.get(settings.chunks()).event().equals("done");
  }

  private static Result burst(String name, Settings settings, TestUpstream upstream, String template,
      IntFunction<CompletableFuture<Boolean>> request) {
    int callsBefore = upstream.calls(template);
    ScheduledExecutorService arrivals = Executors.newSingleThreadScheduledExecutor();
    long[] millis = new long[settings.clients()];
    List<CompletableFuture<Boolean>> done = new ArrayList<>();
    for (int i = 0; i < settings.clients(); i++) {
      int client = i;
      long delay = settings.window().toNanos() * i / settings.clients();
      CompletableFuture<Boolean> finished = new CompletableFuture<>();
      done.add(finished);
      arrivals.schedule(() -> {
        long start = System.nanoTime();
        request.apply(client).whenComplete((ok, error) -> {
          millis[client] = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
          finished.complete(error == null && ok);
        });
      }, delay, TimeUnit.NANOSECONDS);
    }
    int complete = (int) done.stream().map(f -> f.orTimeout(10, TimeUnit.MINUTES).join()).filter(b -> b).count();
    arrivals.shutdownNow();
    return new Result(name, upstream.calls(template) - callsBefore, millis, complete);
  }

  private static void report(Path out, boolean quick, Settings settings, List<Result> results) throws Exception {
    StringBuilder md = new StringBuilder("# Stream gateway: push-like burst\n\n")
        .append(String.format(Locale.ROOT, "%s run: %d identical requests over %d ms; upstream streams %d chunks "
                + "%d ms apart and generates at most %d responses at once.%n%n",
            quick ? "Quick" : "Full", settings.clients(), settings.window().toMillis(), settings.chunks(),
            settings.chunkInterval().toMillis(), settings.concurrency()))
        .append("| mode | upstream calls | complete responses | p50 ms | p99 ms |\n")
        .append("| --- | ---: | ---: | ---: | ---: |\n");
    for (Result r : results) {
      md.append(String.format(Locale.ROOT, "| %s | %d | %d/%d | %d | %d |%n", r.name(), r.upstreamCalls(),
          r.complete(), r.millis().length, r.percentile(0.50), r.percentile(0.99)));
    }
    md.append("\nLatency: from sending the request to the end of the complete response. Without the burst "
        + "flag a finished response is kept for the default 200 ms, so clients arriving later start a new "
        + "upstream call; with it, for 5 s.\n");
    Files.createDirectories(out);
    Files.writeString(out.resolve("report.md"), md);
    System.out.print(md);
    System.out.println("\nwritten to " + out.resolve("report.md"));
  }
}
