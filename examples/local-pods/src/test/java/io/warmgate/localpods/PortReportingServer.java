package io.warmgate.localpods;

import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;

/**
 * A pod process for the tests that keeps the local-pods port contract as deal-service does: binds
 * {@code PORT}, serves {@code GET /healthz} with the value of {@code POD}, then writes the bound
 * port to {@code PORT_FILE} in one rename.
 */
public final class PortReportingServer {

  private PortReportingServer() {}

  public static void main(String[] args) throws IOException {
    byte[] pod = System.getenv("POD").getBytes(StandardCharsets.UTF_8);
    HttpServer server = HttpServer.create(new InetSocketAddress(Integer.parseInt(System.getenv("PORT"))), 50);
    server.createContext("/healthz", exchange -> {
      try (exchange) {
        exchange.sendResponseHeaders(200, pod.length);
        try (OutputStream out = exchange.getResponseBody()) {
          out.write(pod);
        }
      }
    });
    server.start();
    Path portFile = Path.of(System.getenv(LocalPodRunner.PORT_FILE_ENV));
    Path tmp = portFile.resolveSibling(portFile.getFileName() + ".tmp");
    Files.writeString(tmp, server.getAddress().getPort() + "\n", StandardCharsets.US_ASCII);
    Files.move(tmp, portFile, StandardCopyOption.ATOMIC_MOVE);
  }
}
