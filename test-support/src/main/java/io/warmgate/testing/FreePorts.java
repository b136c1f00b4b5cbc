package io.warmgate.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;

/** Picks loopback TCP ports that are free at the moment of the call. */
final class FreePorts {

  private FreePorts() {
  }

  /** Returns a port the kernel just handed out on 127.0.0.1 and that nothing listens on now. */
  static int next() {
    try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      return socket.getLocalPort();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot allocate a free loopback port", e);
    }
  }

  /** Returns whether something accepts TCP connections on 127.0.0.1:{@code port}. */
  static boolean isListening(int port) {
    try (Socket socket = new Socket()) {
      socket.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 200);
      return true;
    } catch (IOException e) {
      return false;
    }
  }
}
