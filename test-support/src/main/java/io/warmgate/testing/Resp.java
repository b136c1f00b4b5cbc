package io.warmgate.testing;

import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import javax.net.ssl.SSLContext;

/**
 * The few Redis commands the extensions send themselves (PING, INFO, CLUSTER NODES, FLUSHALL),
 * each on a new loopback connection: RESP2 over plain TCP or TLS. No client library is needed at
 * runtime, so test-support stays free of Lettuce.
 */
final class Resp {

  /** An error reply ({@code -ERR ...}). */
  static final class ErrorReply extends IOException {
    private static final long serialVersionUID = 1L;

    ErrorReply(String message) {
      super(message);
    }
  }

  private Resp() {
  }

  /**
   * Sends {@code command} to 127.0.0.1:{@code port} and returns the reply: a String for simple and
   * bulk strings (null for a null bulk), a Long for integers, a List for arrays.
   *
   * @param tls the trust for a TLS connection, or null for plain TCP
   * @param password sent with {@code AUTH} first, or null
   * @throws ErrorReply if the server answered with an error
   * @throws IOException if the connection failed
   */
  static Object call(int port, SSLContext tls, String password, String... command) throws IOException {
    Socket plain = new Socket();
    try {
      plain.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 500);
      plain.setSoTimeout(5_000);
      try (Socket socket = tls == null ? plain
          : tls.getSocketFactory().createSocket(plain, "127.0.0.1", port, true)) {
        OutputStream out = socket.getOutputStream();
        InputStream in = new BufferedInputStream(socket.getInputStream());
        if (password != null) {
          out.write(encode("AUTH", password));
          out.flush();
          read(in);
        }
        out.write(encode(command));
        out.flush();
        return read(in);
      }
    } finally {
      plain.close();
    }
  }

  private static byte[] encode(String... args) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    out.writeBytes(("*" + args.length + "\r\n").getBytes(StandardCharsets.UTF_8));
    for (String arg : args) {
      byte[] bytes = arg.getBytes(StandardCharsets.UTF_8);
      out.writeBytes(("$" + bytes.length + "\r\n").getBytes(StandardCharsets.UTF_8));
      out.writeBytes(bytes);
      out.writeBytes("\r\n".getBytes(StandardCharsets.UTF_8));
    }
    return out.toByteArray();
  }

  private static Object read(InputStream in) throws IOException {
    int type = in.read();
    String line = line(in);
    switch (type) {
      case '+':
        return line;
      case '-':
        throw new ErrorReply(line);
      case ':':
        return Long.parseLong(line);
      case '$': {
        int length = Integer.parseInt(line);
        if (length < 0) {
          return null;
        }
        byte[] bytes = in.readNBytes(length + 2);
        if (bytes.length < length + 2) {
          throw new IOException("connection closed in a bulk reply");
        }
        return new String(bytes, 0, length, StandardCharsets.UTF_8);
      }
      case '*': {
        int length = Integer.parseInt(line);
        List<Object> items = new ArrayList<>(Math.max(0, length));
        for (int i = 0; i < length; i++) {
          items.add(read(in));
        }
        return items;
      }
      case -1:
        throw new IOException("connection closed before a reply");
      default:
        throw new IOException("not a RESP reply: '" + (char) type + line + "'");
    }
  }

  private static String line(InputStream in) throws IOException {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    int previous = -1;
    for (int c = in.read(); c != -1; c = in.read()) {
      if (previous == '\r' && c == '\n') {
        byte[] bytes = out.toByteArray();
        return new String(bytes, 0, bytes.length - 1, StandardCharsets.UTF_8);
      }
      out.write(c);
      previous = c;
    }
    throw new IOException("connection closed in a reply line");
  }
}
