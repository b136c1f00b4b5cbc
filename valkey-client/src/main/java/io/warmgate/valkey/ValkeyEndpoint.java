package io.warmgate.valkey;

import io.lettuce.core.RedisURI;
import io.lettuce.core.SslOptions;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.cert.CertificateException;
import java.security.cert.CertificateFactory;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Objects;

/**
 * Where Valkey lives and how to reach it: one standalone Valkey/Redis server, or the seed nodes of a
 * Valkey cluster (Memorystore for Valkey, ElastiCache, a self-managed cluster); TLS and credentials
 * as the URIs say ({@code rediss://user:password@host:port}), optionally a CA to trust instead of
 * the JDK's, and where lookups read from. Immutable; {@link #toString()} shows no password.
 *
 * <pre>{@code
 * ValkeyEndpoint.standalone("redis://valkey:6379");
 * ValkeyEndpoint.cluster("rediss://10.0.0.3:6379", "rediss://10.0.0.4:6379")
 *     .withTrustedCertificates(Path.of("/etc/valkey/ca.pem"))
 *     .withReadFrom(ValkeyEndpoint.ReadFrom.REPLICA_PREFERRED);
 * }</pre>
 */
public final class ValkeyEndpoint {

  /** How the servers are organised. */
  public enum Mode {
    /** One server holds every key. */
    STANDALONE,
    /** Keys are spread over the hash slots of a cluster's primaries, each with replicas. */
    CLUSTER
  }

  /** Where lookups read values from; every other command goes to the primary of its slot. */
  public enum ReadFrom {
    /** Every read goes to the primary: a lookup sees every write that completed before it. */
    PRIMARY,
    /**
     * Lookups read from a replica of the key's slot while one is up, else from the primary
     * (cluster only). Replication is asynchronous: a replica may answer with what the primary held
     * a moment ago, or miss a value just written (that lookup then reads the origin). The values
     * themselves stay within {@code maxStaleness}, which is checked against the time they left the
     * origin, not against where they were read. Fill leases, refresh locks and the fleet services
     * always use the primaries.
     */
    REPLICA_PREFERRED;

    /** Returns the name in configuration: {@code primary}, {@code replica-preferred}. */
    public String configName() {
      return name().toLowerCase(Locale.ROOT).replace('_', '-');
    }
  }

  private final Mode mode;
  private final List<RedisURI> nodes;
  private final ReadFrom readFrom;
  private final byte[] caPem;
  private final Path caFile;

  private ValkeyEndpoint(Mode mode, List<RedisURI> nodes, ReadFrom readFrom, byte[] caPem,
      Path caFile) {
    this.mode = mode;
    this.nodes = nodes;
    this.readFrom = readFrom;
    this.caPem = caPem;
    this.caFile = caFile;
  }

  /** The standalone server at {@code uri}, such as {@code redis://valkey:6379}. */
  public static ValkeyEndpoint standalone(RedisURI uri) {
    return new ValkeyEndpoint(Mode.STANDALONE, List.of(copy(Objects.requireNonNull(uri, "uri"))),
        ReadFrom.PRIMARY, null, null);
  }

  /**
   * The standalone server at {@code uri}.
   *
   * @throws IllegalArgumentException if {@code uri} is not a Redis URI
   */
  public static ValkeyEndpoint standalone(String uri) {
    return standalone(parse(uri));
  }

  /**
   * The cluster that {@code seeds} belong to: any of its nodes, of which at least one must answer
   * when connecting; the others are found through it. Every seed must agree on TLS and peer
   * verification; the credentials of the first are used for every node.
   *
   * @throws IllegalArgumentException if there is no seed, a seed is listed twice, or the seeds
   *     disagree
   */
  public static ValkeyEndpoint cluster(List<RedisURI> seeds) {
    Objects.requireNonNull(seeds, "seeds");
    if (seeds.isEmpty()) {
      throw new IllegalArgumentException("a cluster needs at least one seed node");
    }
    List<RedisURI> copies = new ArrayList<>(seeds.size());
    RedisURI first = seeds.get(0);
    for (RedisURI seed : seeds) {
      Objects.requireNonNull(seed, "seed");
      if (seed.isSsl() != first.isSsl() || seed.getVerifyMode() != first.getVerifyMode()) {
        throw new IllegalArgumentException("cluster seed " + address(seed) + " differs from seed "
            + address(first) + " in TLS or peer verification: all seeds of one cluster must use "
            + "the same");
      }
      for (RedisURI other : copies) {
        if (address(other).equals(address(seed))) {
          throw new IllegalArgumentException("cluster seed " + address(seed)
              + " is listed twice: list each node once");
        }
      }
      copies.add(copy(seed));
    }
    return new ValkeyEndpoint(Mode.CLUSTER, List.copyOf(copies), ReadFrom.PRIMARY, null, null);
  }

  /**
   * The cluster of the seed URIs, such as {@code redis://10.0.0.3:6379}; see {@link #cluster(List)}.
   *
   * @throws IllegalArgumentException if a URI is malformed, or as {@link #cluster(List)}
   */
  public static ValkeyEndpoint cluster(String... seedUris) {
    List<RedisURI> seeds = new ArrayList<>(seedUris.length);
    for (String uri : seedUris) {
      seeds.add(parse(uri));
    }
    return cluster(seeds);
  }

  /**
   * Returns this endpoint with lookups reading from {@code readFrom}.
   *
   * @throws IllegalArgumentException for {@link ReadFrom#REPLICA_PREFERRED} on a standalone server,
   *     which has no replicas the agent knows of
   */
  public ValkeyEndpoint withReadFrom(ReadFrom readFrom) {
    Objects.requireNonNull(readFrom, "readFrom");
    if (readFrom != ReadFrom.PRIMARY && mode == Mode.STANDALONE) {
      throw new IllegalArgumentException("reading from replicas needs cluster mode: a standalone "
          + "server has no replicas the agent can find");
    }
    return new ValkeyEndpoint(mode, nodes, readFrom, caPem, caFile);
  }

  /**
   * Returns this endpoint trusting the CA certificates in {@code pem} (one or more PEM
   * {@code CERTIFICATE} blocks) instead of the JDK's trust store.
   *
   * @throws IllegalArgumentException if the URIs do not use TLS, or {@code pem} holds no
   *     certificate
   */
  public ValkeyEndpoint withTrustedCertificates(String pem) {
    Objects.requireNonNull(pem, "pem");
    byte[] bytes = pem.getBytes(StandardCharsets.US_ASCII);
    requireTls();
    requireCertificates(bytes, "the PEM text");
    return new ValkeyEndpoint(mode, nodes, readFrom, bytes, null);
  }

  /**
   * Returns this endpoint trusting the CA certificates in the PEM file {@code file} instead of the
   * JDK's trust store. The file is read again for each new connection, so a rotated CA mounted
   * from a Secret is picked up.
   *
   * @throws IllegalArgumentException if the URIs do not use TLS, or the file cannot be read or
   *     holds no certificate
   */
  public ValkeyEndpoint withTrustedCertificates(Path file) {
    Objects.requireNonNull(file, "file");
    requireTls();
    byte[] bytes;
    try {
      bytes = Files.readAllBytes(file);
    } catch (IOException e) {
      throw new IllegalArgumentException("cannot read the CA file " + file + ": " + e);
    }
    requireCertificates(bytes, "the file " + file);
    return new ValkeyEndpoint(mode, nodes, readFrom, null, file);
  }

  /** Returns whether this is a standalone server or a cluster. */
  public Mode mode() {
    return mode;
  }

  /** Returns the server's URI (standalone) or the seed URIs (cluster), in the order given. */
  public List<RedisURI> nodes() {
    return nodes;
  }

  /** Returns where lookups read from. */
  public ReadFrom readFrom() {
    return readFrom;
  }

  /** Returns whether connections use TLS. */
  public boolean isTls() {
    return nodes.get(0).isSsl();
  }

  /** Lettuce's TLS options: the trusted CA when one was given, else the JDK's trust store. */
  SslOptions sslOptions() {
    SslOptions.Builder ssl = SslOptions.builder().jdkSslProvider();
    if (caFile != null) {
      ssl.trustManager(SslOptions.Resource.from(caFile.toFile()));
    } else if (caPem != null) {
      ssl.trustManager(() -> new ByteArrayInputStream(caPem));
    }
    return ssl.build();
  }

  private void requireTls() {
    if (!isTls()) {
      throw new IllegalArgumentException("a trusted CA needs TLS, but " + address(nodes.get(0))
          + " is addressed without it: use rediss:// (WARMGATE_VALKEY_TLS=true)");
    }
  }

  private static void requireCertificates(byte[] pem, String where) {
    String problem;
    try (InputStream in = new ByteArrayInputStream(pem)) {
      if (!CertificateFactory.getInstance("X.509").generateCertificates(in).isEmpty()) {
        return;
      }
      problem = "";
    } catch (CertificateException | IOException e) {
      problem = " (" + e.getMessage() + ")";
    }
    throw new IllegalArgumentException(where + " holds no certificate" + problem + ": expected "
        + "PEM '-----BEGIN CERTIFICATE-----' blocks of the CA that signed the servers' "
        + "certificates");
  }

  private static RedisURI parse(String uri) {
    Objects.requireNonNull(uri, "uri");
    try {
      return RedisURI.create(uri);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("'" + uri + "' is not a Valkey URI: expected "
          + "redis://host:port or rediss://[user:password@]host:port", e);
    }
  }

  /** A copy, so that a caller changing its URI later does not change this endpoint. */
  private static RedisURI copy(RedisURI uri) {
    return RedisURI.builder(uri).build();
  }

  private static String address(RedisURI uri) {
    return uri.getHost() + ":" + uri.getPort();
  }

  @Override
  public String toString() {
    StringBuilder text = new StringBuilder(mode == Mode.STANDALONE ? "standalone " : "cluster seeds ");
    for (int i = 0; i < nodes.size(); i++) {
      text.append(i == 0 ? "" : ",").append(address(nodes.get(i)));
    }
    if (isTls()) {
      text.append(", TLS").append(caFile != null ? " (CA " + caFile + ")"
          : caPem != null ? " (CA given as PEM)" : "");
    }
    if (readFrom != ReadFrom.PRIMARY) {
      text.append(", lookups read from ").append(readFrom.configName());
    }
    return text.toString();
  }
}
