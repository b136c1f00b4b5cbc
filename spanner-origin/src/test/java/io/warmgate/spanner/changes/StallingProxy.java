package io.warmgate.spanner.changes;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A TCP forwarder on loopback between one client and a server, standing in for the network
 * between a pod and Valkey: while {@link #stall() stalled} it accepts bytes and holds them
 * (connections stay open, nothing is answered), as a partition or a stalled link looks to the
 * client; {@link #resume()} delivers what it held, late, then forwards again.
 */
final class StallingProxy implements AutoCloseable {

  private final ServerSocket listener;
  private final InetSocketAddress target;
  private final List<Socket> sockets = new CopyOnWriteArrayList<>();
  private final Object gate = new Object();
  private volatile boolean stalled;
  private volatile boolean closed;

  /** Listens on a free loopback port and forwards every connection to {@code host:port}. */
  StallingProxy(String host, int port) throws IOException {
    this.target = new InetSocketAddress(host, port);
    this.listener = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
    Thread accept = new Thread(this::accept, "stalling-proxy-accept");
    accept.setDaemon(true);
    accept.start();
  }

  /** The {@code redis://} URI of the proxy. */
  String uri() {
    return "redis://127.0.0.1:" + listener.getLocalPort();
  }

  void stall() {
    stalled = true;
  }

  void resume() {
    synchronized (gate) {
      stalled = false;
      gate.notifyAll();
    }
  }

  private void accept() {
    while (!closed) {
      try {
        Socket client = listener.accept();
        Socket server = new Socket();
        server.connect(target, 2_000);
        sockets.add(client);
        sockets.add(server);
        pump(client, server);
        pump(server, client);
      } catch (IOException e) {
        if (closed) {
          return;
        }
      }
    }
  }

  private void pump(Socket from, Socket to) {
    Thread t = new Thread(() -> {
      byte[] buffer = new byte[16 * 1024];
      try (InputStream in = from.getInputStream(); OutputStream out = to.getOutputStream()) {
        int n;
        while ((n = in.read(buffer)) >= 0) {
          awaitResumed();
          out.write(buffer, 0, n);
          out.flush();
        }
      } catch (IOException | InterruptedException e) {
        // one side closed: close both below
      } finally {
        closeQuietly(from);
        closeQuietly(to);
      }
    }, "stalling-proxy-pump");
    t.setDaemon(true);
    t.start();
  }

  private void awaitResumed() throws InterruptedException {
    synchronized (gate) {
      while (stalled && !closed) {
        gate.wait(100);
      }
    }
  }

  private static void closeQuietly(Socket s) {
    try {
      s.close();
    } catch (IOException e) {
      // closing anyway
    }
  }

  @Override
  public void close() throws IOException {
    closed = true;
    resume();
    listener.close();
    sockets.forEach(StallingProxy::closeQuietly);
  }
}
