package io.warmgate.gateway.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.warmgate.gateway.config.GatewayConfig;
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
 * 512 KiB response: the gateway stops writing to each once its write queue is full, holds its
 * memory (heap and direct buffers) under a stated bound instead of 500 copies of the response, and
 * drops them after the slow-client timeout with a closed connection.
 */
@Timeout(value = 4, unit = TimeUnit.MINUTES)
class SlowClientIT {

  static final int CLIENTS = 500;
  static final int CHUNKS = 128;
  static final int CHUNK_BYTES = 4096;
  /**
   * The bound: what 500 stalled clients may add to the heap and direct memory together (the
   * response itself is 512 KiB, 500 copies of it 250 MiB).
   */
  static final long HEAP_BOUND_BYTES = 64L << 20;

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
        // Every entry has reached the subscribers' event loops by now; give the writes a moment.
        long held = 0;
        for (int sample = 0; sample < 3; sample++) {
          Thread.sleep(500);  // samples spread in time; nothing to await on
          held = Math.max(held, memoryAfterGc() - baseline);
        }
        System.out.printf("SlowClientIT: %d clients that never read a %d KiB response: heap and direct memory grew by "
                + "%.1f MiB (bound %d MiB)%n", CLIENTS, CHUNKS * CHUNK_BYTES / 1024, held / 1048576.0,
            HEAP_BOUND_BYTES >> 20);
        assertThat(held).as("heap and direct memory held for %d stalled clients", CLIENTS).isLessThan(HEAP_BOUND_BYTES);

        // After the slow-client timeout every one of them is dropped and its connection closed.
        await().atMost(Duration.ofMinutes(1)).until(() -> metric(client, port, "slowClientsDropped") == CLIENTS);
        assertThat(fleet.get(0).metrics().subscribers()).isZero();
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
