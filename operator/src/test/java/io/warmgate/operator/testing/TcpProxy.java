package io.warmgate.operator.testing;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A loopback TCP forwarder in front of a real server, which a test can {@link #cut()} (close its
 * port and every forwarded connection, so clients see connection refused) and {@link #restore()}
 * on the same port. Used to take the API server away from the operator only, while the test's own
 * client still reaches it directly.
 */
public final class TcpProxy implements AutoCloseable {

  private final InetSocketAddress target;
  private final int port;
  private final Set<Socket> open = ConcurrentHashMap.newKeySet();
  private volatile ServerSocket listening;

  /** Starts forwarding a free loopback port to {@code target}. */
  public TcpProxy(InetSocketAddress target) {
    this.target = target;
    this.listening = bind(0);
    this.port = listening.getLocalPort();
    accept(listening);
  }

  /** The loopback port clients connect to. */
  public int port() {
    return port;
  }

  /** Closes the port and every connection through it: clients are refused until restored. */
  public synchronized void cut() {
    closeQuietly(listening);
    for (Socket socket : open) {
      closeQuietly(socket);
    }
    open.clear();
  }

  /** Listens on the same port again; does nothing while it listens. */
  public synchronized void restore() {
    if (!listening.isClosed()) {
      return;
    }
    listening = bind(port);
    accept(listening);
  }

  @Override
  public void close() {
    cut();
  }

  private ServerSocket bind(int onPort) {
    try {
      ServerSocket server = new ServerSocket();
      server.setReuseAddress(true);
      server.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), onPort));
      return server;
    } catch (IOException e) {
      throw new UncheckedIOException("cannot listen on 127.0.0.1:" + onPort, e);
    }
  }

  private void accept(ServerSocket server) {
    Thread acceptor = new Thread(() -> {
      while (!server.isClosed()) {
        try {
          Socket client = server.accept();
          Socket upstream = new Socket();
          upstream.connect(target, 5_000);
          open.add(client);
          open.add(upstream);
          pump(client, upstream);
          pump(upstream, client);
        } catch (IOException e) {
          // Closed by cut(), or the target refused: the client's connection just ends.
        }
      }
    }, "tcp-proxy-accept-" + port);
    acceptor.setDaemon(true);
    acceptor.start();
  }

  private void pump(Socket from, Socket to) {
    Thread pump = new Thread(() -> {
      byte[] buffer = new byte[16 * 1024];
      try (InputStream in = from.getInputStream(); OutputStream out = to.getOutputStream()) {
        for (int n; (n = in.read(buffer)) >= 0; ) {
          out.write(buffer, 0, n);
          out.flush();
        }
      } catch (IOException e) {
        // One side closed.
      } finally {
        closeQuietly(from);
        closeQuietly(to);
        open.remove(from);
        open.remove(to);
      }
    }, "tcp-proxy-pump-" + port);
    pump.setDaemon(true);
    pump.start();
  }

  private static void closeQuietly(AutoCloseable closeable) {
    try {
      closeable.close();
    } catch (Exception e) {
      // Already closed.
    }
  }
}
