package io.warmgate.gateway.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.warmgate.gateway.config.GatewayConfig;
import io.warmgate.gateway.metrics.GatewayMetrics;
import java.io.InputStream;
import java.io.OutputStream;
import java.lang.management.ManagementFactory;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.net.URI;
import java.net.http.HttpRequest;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * 500 clients open a stream over real sockets and never read it, while the upstream sends a
 * 512 KiB response: the gateway stops writing to each once its write queue is full, so the bytes
 * it holds for them (its queued-bytes gauge) stay within the write queue and one slice per client
 * instead of 500 copies of the response, and it drops them after the slow-client timeout with a
 * closed connection, which frees every queued byte.
 */
@Timeout(value = 4, unit = TimeUnit.MINUTES)
class SlowClientIT {

  static final int CLIENTS = 500;
  static final int CHUNKS = 128;
  static final int CHUNK_BYTES = 4096;
  /**
   * What the gateway may hold queued for one client that never reads, from its documented design
   * (docs/runbook.md, {@code warmgate_gateway_queued_bytes}): a 32 KiB write queue, then writing
   * stops, and the slice that filled it, about 8 KiB, over by at most one event (a chunk and its
   * {@code id:}, {@code event:} and {@code data:} lines, under 200 bytes here).
   */
  static final long QUEUED_BOUND_PER_CLIENT = (32 << 10) + (8 << 10) + CHUNK_BYTES + 200;
  /**
   * Writing stops only once a client's queue is full, so every stalled client holds about 32 KiB;
   * at least 24 KiB of them are counted, as the queue's own count adds per-write overhead and the
   * chunked encoding's framing, which the gauge does not.
   */
  static final long QUEUED_FLOOR_PER_CLIENT = 24 << 10;
  /**
   * What 500 stalled clients may add to the heap and direct memory together: half of what one copy
   * of the 512 KiB response per client would take (250 MiB). Coarse on purpose, as the JVM's
   * memory is measured in Netty's pooled chunks; the queued bytes above are the exact measure.
   */
  static final long MEMORY_BOUND_BYTES = 128L << 20;

  @RegisterExtension
  final ValkeyExtension valkey = new ValkeyExtension(ValkeyMode.STANDALONE);

  private static final ObjectMapper JSON = new ObjectMapper();

  @Test
  void fiveHundredClientsThatNeverReadHoldTheHeapUnderTheBoundAndAreDropped() throws Exception {
    String chunk = "x".repeat(CHUNK_BYTES);
    CompletableFuture<Void> gate = new CompletableFuture<>();
    List<Socket> sockets = new ArrayList<>();
    try (TestUpstream upstream = TestUpstream.start(); SseClient client = new SseClient()) {
      upstream.script("big", TestUpstream.Script.of(IntStream.range(0, CHUNKS).mapToObj(i -> chunk).toList(),
          Duration.ofMillis(1)).gatedAt(0, gate, false));
      Map<String, String> env = GatewayFleet.env(valkey.env(), upstream);
      env.put(GatewayConfig.SLOW_CLIENT_TIMEOUT, "20s");
      env.put(GatewayConfig.RESULT_TTL, "60s");
      try (GatewayFleet fleet = GatewayFleet.start(1, env)) {
        int port = fleet.port(0);
        long baseline = memoryAfterGc();
        byte[] body = SseClient.body(Map.of("q", "big"), Map.of()).getBytes(StandardCharsets.UTF_8);
        byte[] request = ("POST /v1/streams/big HTTP/1.1\r\nHost: 127.0.0.1\r\n"
            + "Content-Type: application/json\r\nAuthorization: Bearer " + GatewayFleet.STREAM_TOKEN
            + "\r\nContent-Length: " + body.length + "\r\n\r\n").getBytes(StandardCharsets.US_ASCII);
        for (int i = 0; i < CLIENTS; i++) {
          Socket socket = new Socket();
          socket.setReceiveBufferSize(4096);  // a stalled client: its kernel takes little either
          socket.connect(new InetSocketAddress("127.0.0.1", port), 30_000);
          OutputStream out = socket.getOutputStream();
          out.write(request);
          out.write(body);
          out.flush();
          sockets.add(socket);
        }
        await().atMost(Duration.ofMinutes(1)).until(() -> fleet.get(0).metrics().subscribers() == CLIENTS);
        gate.complete(null);
        await().atMost(Duration.ofMinutes(1)).until(() -> upstream.calls("big") == 1
            && fleet.get(0).activeUpstreamCalls() == 0);
        // Every entry has reached the subscribers' event loops by now: each queue fills and stays full.
        GatewayMetrics metrics = fleet.get(0).metrics();
        await("every stalled client's write queue full").atMost(Duration.ofMinutes(1))
            .until(metrics::queuedBytes, q -> q >= CLIENTS * QUEUED_FLOOR_PER_CLIENT);
        // ... and stays within the bound while the clients stall (a queue that kept growing past its
        // limit passed a single early reading: 25 KiB per client at first, 101 to 133 KiB
        // 6 s later).
        await("queued bytes within the bound for 5 s").during(Duration.ofSeconds(5))
            .atMost(Duration.ofSeconds(8)).pollInterval(Duration.ofMillis(200))
            .until(metrics::queuedBytes, q -> q <= CLIENTS * QUEUED_BOUND_PER_CLIENT);
        long queued = metrics.queuedBytes();
        long memory = memoryAfterGc() - baseline;
        System.out.printf("SlowClientIT: %d clients that never read a %d KiB response: %.1f MiB queued "
                + "(%.1f KiB per client, bound %.1f KiB); heap and direct memory grew by %.1f MiB "
                + "(bound %d MiB)%n", CLIENTS, CHUNKS * CHUNK_BYTES / 1024, queued / 1048576.0,
            queued / 1024.0 / CLIENTS, QUEUED_BOUND_PER_CLIENT / 1024.0, memory / 1048576.0,
            MEMORY_BOUND_BYTES >> 20);
        assertThat(queued).as("bytes queued for %d stalled clients", CLIENTS)
            .isLessThanOrEqualTo(CLIENTS * QUEUED_BOUND_PER_CLIENT);
        assertThat(memory).as("heap and direct memory held for %d stalled clients", CLIENTS)
            .isLessThan(MEMORY_BOUND_BYTES);

        // After the slow-client timeout every one of them is dropped and its connection closed.
        await().atMost(Duration.ofMinutes(1)).until(() -> metric(client, port, "slowClientsDropped") == CLIENTS);
        assertThat(metrics.subscribers()).isZero();
        await("the dropped clients' queued bytes freed").atMost(Duration.ofSeconds(30))
            .until(metrics::queuedBytes, q -> q == 0);
        assertEndsWithEof(sockets.get(0));
        // ... while a client that reads gets the whole response from the snapshot.
        List<SseEvent> events = client.stream(port, "big", SseClient.body(Map.of("q", "big"), Map.of()), null)
            .get(60, TimeUnit.SECONDS);
        assertThat(events).hasSize(CHUNKS + 1);
      }
    } finally {
      gate.complete(null);
      for (Socket socket : sockets) {
        socket.close();
      }
    }
  }

  /**
   * Heap after a collection plus direct memory: Netty's own count (its pooled arenas and
   * unpooled buffers without a cleaner) and the JDK's direct buffers. Outbound bytes may sit in
   * either, depending on the allocator.
   */
  private static long memoryAfterGc() {
    System.gc();
    long heap = ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
    long netty = Math.max(0, io.netty.util.internal.PlatformDependent.usedDirectMemory());
    long jdk = ManagementFactory.getPlatformMXBeans(java.lang.management.BufferPoolMXBean.class).stream()
        .filter(b -> b.getName().equals("direct")).mapToLong(java.lang.management.BufferPoolMXBean::getMemoryUsed)
        .sum();
    return heap + netty + jdk;
  }

  private static long metric(SseClient client, int port, String name) throws Exception {
    var response = client.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/v1/metrics"))
        .timeout(Duration.ofSeconds(30)).build());
    return JSON.readTree(response.body()).path(name).asLong(-1);
  }

  /** Reads what the kernel still holds for the client; the server closed: end of stream. */
  private static void assertEndsWithEof(Socket socket) throws Exception {
    socket.setSoTimeout(10_000);
    InputStream in = socket.getInputStream();
    byte[] buffer = new byte[65536];
    boolean eof = false;
    try {
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
      while (System.nanoTime() < deadline) {
        if (in.read(buffer) < 0) {
          eof = true;
          break;
        }
      }
    } catch (SocketTimeoutException e) {
      // still open: asserted below
    } catch (java.net.SocketException e) {
      eof = true;  // reset: closed as well
    }
    assertThat(eof).as("the dropped client's connection is closed").isTrue();
  }
}
