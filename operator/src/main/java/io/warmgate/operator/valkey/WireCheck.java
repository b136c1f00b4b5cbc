package io.warmgate.operator.valkey;

import io.warmgate.operator.status.Reasons;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.util.Arrays;
import java.util.Set;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.TrustManager;
import javax.net.ssl.X509TrustManager;

/**
 * A look at the wire when Lettuce only saw a timeout or a closed connection: sends a plain
 * {@code PING} (over TLS when the policy uses it) and reads what comes back, so that
 * {@code L2Reachable} tells "the server speaks TLS" and "this is not Valkey" apart from a
 * timeout. A server speaking TLS is recognised by completing a handshake that trusts any
 * certificate; nothing but {@code PING} is ever sent on it, and no credentials.
 */
final class WireCheck {

  /** The reasons a look at the wire may sharpen; the others already say what is wrong. */
  private static final Set<String> VAGUE = Set.of(Reasons.TIMEOUT, Reasons.CONNECTION_FAILED);
  private static final int READ_LIMIT = 256;

  private WireCheck() {}

  /** {@code seen}, or a sharper result when the wire shows a TLS mismatch or not Valkey. */
  static ProbeResult explain(String address, boolean tls, Duration timeout, ProbeResult seen) {
    if (!VAGUE.contains(seen.reason())) {
      return seen;
    }
    int colon = address.lastIndexOf(':');
    String host = address.substring(0, colon);
    int port = Integer.parseInt(address.substring(colon + 1));
    byte[] reply;
    try {
      reply = ping(host, port, timeout, tls);
    } catch (IOException | GeneralSecurityException e) {
      reply = new byte[0];
    }
    if (reply.length > 0 && isResp(reply)) {
      return seen;
    }
    if (reply.length > 0) {
      return !tls && isTlsRecord(reply) ? speaksTls(address)
          // What the other side said is not repeated: status must not relay other services.
          : ProbeResult.failed(Reasons.NOT_VALKEY, address + " answered PING with something "
              + "other than a Valkey reply, so it is not Valkey; check that "
              + "spec.valkey.addresses names the Valkey Service and port");
    }
    // Nothing came back: the other side may speak the other protocol.
    if (!tls && handshakes(host, port, timeout)) {
      return speaksTls(address);
    }
    if (tls && answersPlainPing(host, port, timeout)) {
      return speaksPlain(address);
    }
    return seen;
  }

  private static ProbeResult speaksTls(String address) {
    return ProbeResult.failed(Reasons.TLS_MISMATCH, "Valkey at " + address + " speaks TLS, but "
        + "spec.valkey.tls is false; set spec.valkey.tls: true (and spec.valkey.tlsCaSecretRef "
        + "when a private CA signed its certificate)");
  }

  private static ProbeResult speaksPlain(String address) {
    return ProbeResult.failed(Reasons.TLS_MISMATCH, "Valkey at " + address + " answers in plain "
        + "text, without TLS, but spec.valkey.tls is true; set spec.valkey.tls: false, or enable "
        + "TLS on the server");
  }

  /** Whether {@code host:port} answers a plain {@code PING} in RESP. */
  private static boolean answersPlainPing(String host, int port, Duration timeout) {
    try {
      byte[] reply = ping(host, port, timeout, false);
      return reply.length > 0 && isResp(reply);
    } catch (IOException | GeneralSecurityException e) {
      return false;
    }
  }

  /** What the server sends back to {@code PING}, up to a line or {@value #READ_LIMIT} bytes. */
  private static byte[] ping(String host, int port, Duration timeout, boolean tls)
      throws IOException, GeneralSecurityException {
    try (Socket raw = connect(host, port, timeout)) {
      Socket socket = tls ? handshake(raw, host, port) : raw;
      socket.getOutputStream().write("PING\r\n".getBytes(StandardCharsets.US_ASCII));
      socket.getOutputStream().flush();
      InputStream in = socket.getInputStream();
      byte[] buffer = new byte[READ_LIMIT];
      int length = 0;
      while (length < buffer.length) {
        int read;
        try {
          read = in.read(buffer, length, buffer.length - length);
        } catch (SocketTimeoutException e) {
          break;
        }
        if (read < 0) {
          break;
        }
        length += read;
        if (indexOf(buffer, length, (byte) '\n') >= 0) {
          break;
        }
      }
      return Arrays.copyOf(buffer, length);
    } catch (SocketTimeoutException e) {
      return new byte[0];
    }
  }

  /** Whether {@code host:port} completes a TLS handshake (any certificate accepted). */
  private static boolean handshakes(String host, int port, Duration timeout) {
    try (Socket raw = connect(host, port, timeout)) {
      handshake(raw, host, port).close();
      return true;
    } catch (IOException | GeneralSecurityException e) {
      return false;
    }
  }

  private static Socket connect(String host, int port, Duration timeout) throws IOException {
    Socket socket = new Socket();
    int millis = (int) Math.max(1, Math.min(Integer.MAX_VALUE, timeout.toMillis()));
    try {
      socket.connect(new InetSocketAddress(host, port), millis);
      socket.setSoTimeout(millis);
      return socket;
    } catch (IOException e) {
      socket.close();
      throw e;
    }
  }

  private static SSLSocket handshake(Socket raw, String host, int port)
      throws IOException, GeneralSecurityException {
    SSLContext context = SSLContext.getInstance("TLS");
    context.init(null, new TrustManager[] {new AnyCertificate()}, null);
    SSLSocket tls = (SSLSocket) context.getSocketFactory().createSocket(raw, host, port, true);
    tls.startHandshake();
    return tls;
  }

  /** RESP replies start with a type byte: +simple, -error, :integer, $bulk, *array, %map, _null. */
  private static boolean isResp(byte[] reply) {
    return "+-:$*%_".indexOf(reply[0]) >= 0;
  }

  /** A TLS record header: content type alert (21) or handshake (22), then major version 3. */
  private static boolean isTlsRecord(byte[] reply) {
    return reply.length >= 2 && (reply[0] == 21 || reply[0] == 22) && reply[1] == 3;
  }

  private static int indexOf(byte[] buffer, int length, byte wanted) {
    for (int i = 0; i < length; i++) {
      if (buffer[i] == wanted) {
        return i;
      }
    }
    return -1;
  }

  /** Accepts every certificate: only used to learn whether a server speaks TLS at all. */
  private static final class AnyCertificate implements X509TrustManager {
    @Override
    public void checkClientTrusted(X509Certificate[] chain, String authType) {}

    @Override
    public void checkServerTrusted(X509Certificate[] chain, String authType) {}

    @Override
    public X509Certificate[] getAcceptedIssuers() {
      return new X509Certificate[0];
    }
  }
}
