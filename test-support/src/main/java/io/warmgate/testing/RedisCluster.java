package io.warmgate.testing;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import javax.net.ssl.SSLContext;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A real Redis Cluster: three primaries and three replicas of {@code redis-server
 * --cluster-enabled yes} on free loopback ports, created with {@code redis-cli --cluster create
 * ... --cluster-replicas 1}, without persistence.
 *
 * <p>Nodes keep their ports and cluster identity for the life of the object, so killing a node and
 * {@link #start() starting} it again looks to clients like a crashed and restarted server (empty;
 * a primary that was failed over meanwhile comes back as a replica of the node that replaced it).
 * Failover is quick: {@value #NODE_TIMEOUT_MILLIS} ms of {@code cluster-node-timeout} and
 * {@code cluster-replica-validity-factor 0} (a replica may always take over; with the default, one
 * that synced long ago refuses). Every other setting is Redis's default, including
 * {@code cluster-require-full-coverage yes}: while a primary is failing, the whole cluster refuses
 * commands. Processes are killed by {@link #close()} or at JVM exit. Not thread-safe: drive it from
 * the test thread.
 */
public final class RedisCluster implements ManagedService {

  /** The number of hash slots. */
  public static final int SLOTS = 16_384;
  /** Milliseconds of {@code cluster-node-timeout}: how long a node may be silent before failover. */
  public static final long NODE_TIMEOUT_MILLIS = 1_000;

  private static final Logger LOG = LoggerFactory.getLogger(RedisCluster.class);
  private static final int PRIMARIES = 3;
  private static final Duration HEALTHY_TIMEOUT = Duration.ofSeconds(60);
  private static RedisCluster shared;

  private final boolean tls;
  private final List<Member> members = new ArrayList<>();
  private boolean created;
  private TestCertificates certificates;
  private SSLContext clientContext;

  /** One node process: its ports and directory stay, the process comes and goes. */
  private static final class Member {
    final int port;
    final int busPort;
    final Path dir;
    ManagedProcess process;

    Member(int port, int busPort, Path dir) {
      this.port = port;
      this.busPort = busPort;
      this.dir = dir;
    }

    boolean isAlive() {
      return process != null && process.isAlive();
    }
  }

  /**
   * A node as the cluster describes it at one moment.
   *
   * @param id the node id
   * @param port its client port on 127.0.0.1
   * @param primary whether it is a primary (a master, in Redis's words)
   * @param primaryId the id of its primary, for a replica; null for a primary
   * @param slots how many hash slots it serves (0 for a replica)
   * @param failed whether the cluster flags it as failing ({@code fail} or {@code fail?})
   */
  public record Node(String id, int port, boolean primary, String primaryId, int slots,
      boolean failed) {

    /** Returns {@code 127.0.0.1:<port>}. */
    public String address() {
      return "127.0.0.1:" + port;
    }
  }

  private RedisCluster(boolean tls) {
    this.tls = tls;
  }

  /** Returns a cluster that accepts plain connections; call {@link #start()} to run it. */
  public static RedisCluster create() {
    return new RedisCluster(false);
  }

  /**
   * Returns a cluster whose nodes speak only TLS, to clients and to each other, under a CA issued
   * for it on the first {@link #start()} ({@link #tlsCertificates()}).
   */
  public static RedisCluster withTls() {
    return new RedisCluster(true);
  }

  /**
   * Returns the JVM-wide plain cluster, started on the first call and (again) whenever a node is
   * not running; it runs until the JVM exits, so test classes share it and must not assume it is
   * empty. A test that kills nodes should run a cluster of its own.
   *
   * @throws IllegalStateException if the cluster does not start
   */
  public static synchronized RedisCluster shared() {
    if (shared == null) {
      shared = create();
    }
    if (!shared.isRunning()) {
      shared.start();
    }
    return shared;
  }

  /**
   * Starts every node that is not running (creating the cluster on the first call) and returns
   * once every node reports {@code cluster_state:ok} and all agree which live primary serves each
   * slot.
   *
   * @throws IllegalStateException if {@code redis-server} or {@code redis-cli} is missing (run
   *     {@code hack/prereqs.sh}), a node exits, or the cluster is not healthy within 60 s
   */
  @Override
  public void start() {
    long startNanos = System.nanoTime();
    if (members.isEmpty()) {
      for (int i = 0; i < 2 * PRIMARIES; i++) {
        members.add(freshMember());
      }
    }
    for (int i = 0; i < members.size(); i++) {
      Member m = members.get(i);
      if (m.isAlive()) {
        continue;
      }
      for (int attempt = 1; ; attempt++) {
        try {
          startNode(m);
          break;
        } catch (IllegalStateException e) {
          // A port picked free was taken before the node bound it (another process's
          // connection): before the cluster exists, the node can move to other ports.
          if (created || attempt == 3 || !(e instanceof PortTaken
              || String.valueOf(e.getMessage()).contains("Address already in use"))) {
            throw e;
          }
          LOG.warn("redis cluster node on {}/{} could not bind; trying other ports", m.port,
              m.busPort);
          m = freshMember();
          members.set(i, m);
        }
      }
    }
    if (!created) {
      List<String> command = new ArrayList<>(cli());
      command.addAll(List.of("--cluster", "create"));
      members.forEach(m -> command.add("127.0.0.1:" + m.port));
      command.addAll(List.of("--cluster-replicas", "1", "--cluster-yes"));
      ManagedProcess create = ManagedProcess.start("redis-cluster-create-" + members.get(0).port,
          command, Map.of());
      int exit = create.awaitExit(Duration.ofSeconds(60));
      if (exit != 0) {
        throw new IllegalStateException("redis-cli --cluster create exited with " + exit + "\n"
            + create.logTails());
      }
      created = true;
    }
    awaitHealthy(HEALTHY_TIMEOUT);
    LOG.info("redis cluster on {} ready in {} ms", addresses(),
        (System.nanoTime() - startNanos) / 1_000_000);
  }

  /** A port picked free was bound by another process before the node could bind it. */
  private static final class PortTaken extends IllegalStateException {
    PortTaken(String message) {
      super(message);
    }
  }

  private static Member freshMember() {
    int port = FreePorts.next();
    return new Member(port, FreePorts.next(),
        WarmgatePaths.processLogDir().resolve("redis-cluster-" + port));
  }

  private void startNode(Member m) {
    Path binary = Prerequisites.onPath("redis-server", Path.of("/usr/bin/redis-server"));
    try {
      Files.createDirectories(m.dir);
      if (!created) {
        // A directory left by an earlier node on the same port holds another cluster's identity
        // and, where that node was a replica, the data it synced: a node loading either is not
        // empty, and redis-cli refuses to create a cluster with it.
        for (String leftover : List.of("nodes.conf", "dump.rdb", "temp-*.rdb")) {
          try (var found = Files.newDirectoryStream(m.dir, leftover)) {
            for (Path file : found) {
              Files.deleteIfExists(file);
            }
          }
        }
      }
    } catch (IOException e) {
      throw new IllegalStateException("cannot prepare " + m.dir, e);
    }
    if (FreePorts.isListening(m.port)) {
      throw new PortTaken("cannot start a cluster node: port " + m.port
          + " is taken by another process");
    }
    List<String> command = new ArrayList<>(List.of(binary.toString(),
        "--port", Integer.toString(m.port),
        "--cluster-port", Integer.toString(m.busPort),
        "--bind", "127.0.0.1",
        "--cluster-enabled", "yes",
        "--cluster-config-file", m.dir.resolve("nodes.conf").toString(),
        "--cluster-node-timeout", Long.toString(NODE_TIMEOUT_MILLIS),
        "--cluster-replica-validity-factor", "0",
        "--save", "",
        "--appendonly", "no",
        "--daemonize", "no",
        "--dir", m.dir.toString()));
    if (tls) {
      if (certificates == null) {
        certificates = TestCertificates.issue(members.get(0).dir.resolve("tls"));
      }
      command.set(command.indexOf("--port"), "--tls-port");
      command.addAll(List.of("--port", "0", "--tls-cluster", "yes", "--tls-replication", "yes",
          "--tls-cert-file", certificates.serverCertificate().toString(),
          "--tls-key-file", certificates.serverKey().toString(),
          "--tls-ca-cert-file", certificates.caCertificate().toString(),
          "--tls-auth-clients", "no"));
    }
    ManagedProcess process = ManagedProcess.start("redis-cluster-" + m.port, command, Map.of());
    process.awaitReady("to answer PING on port " + m.port, Duration.ofSeconds(15),
        () -> answersPing(m.port));
    m.process = process;
  }

  /** Kills every node with SIGKILL: the whole cluster is down. {@link #start()} brings it back, empty. */
  public void stop() {
    for (Member m : members) {
      if (m.process != null) {
        m.process.kill();
        m.process = null;
      }
    }
  }

  /** Same as {@link #stop()}; the object can be started again on the same ports. */
  @Override
  public void close() {
    stop();
  }

  /** Returns whether every node process is alive. */
  @Override
  public boolean isRunning() {
    return !members.isEmpty() && members.stream().allMatch(Member::isAlive);
  }

  /**
   * Kills {@code node} with SIGKILL (no shutdown, no save); its connections drop at once.
   *
   * @throws IllegalArgumentException if the node is not one of this cluster's
   */
  public void kill(Node node) {
    Member m = member(node.port());
    if (m.process != null) {
      m.process.kill();
      m.process = null;
    }
  }

  /**
   * Starts {@code node} again after {@link #kill}, on its port and with its identity, and waits
   * until the cluster is healthy with it (a primary failed over meanwhile rejoins as a replica).
   */
  public void restart(Node node) {
    Member m = member(node.port());
    if (!m.isAlive()) {
      startNode(m);
    }
    awaitHealthy(HEALTHY_TIMEOUT);
  }

  /**
   * Waits until every live node reports {@code cluster_state:ok}, flags no live node as failing,
   * and all agree on every live node's role and on which live primary serves how many of the
   * {@value #SLOTS} slots: after a {@link #kill} of a primary, the moment its replica has taken
   * over.
   *
   * @return how long it waited
   * @throws IllegalStateException if that does not happen within {@code timeout}
   */
  public Duration awaitHealthy(Duration timeout) {
    long start = System.nanoTime();
    long deadline = start + timeout.toNanos();
    String problem;
    while ((problem = unhealthy()) != null) {
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException("redis cluster " + addresses() + " not healthy within "
            + timeout + ": " + problem);
      }
      try {
        Thread.sleep(50);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException("interrupted while waiting for the redis cluster", e);
      }
    }
    return Duration.ofNanos(System.nanoTime() - start);
  }

  /** What keeps the cluster from being healthy, or null when it is. */
  private String unhealthy() {
    String agreed = null;
    for (Member m : members) {
      if (!m.isAlive()) {
        continue;
      }
      try {
        String info = (String) call(m.port, "CLUSTER", "INFO");
        if (!info.contains("cluster_state:ok")) {
          return "node " + m.port + " is not cluster_state:ok";
        }
        Map<Integer, String> owners = new TreeMap<>();
        for (Node n : parseNodes((String) call(m.port, "CLUSTER", "NODES"))) {
          Member nm = memberOrNull(n.port());
          boolean live = nm != null && nm.isAlive();
          if (live && n.failed()) {
            return "node " + m.port + " still flags live node " + n.port() + " as failing";
          }
          if (n.primary() && n.slots() > 0 && !live) {
            return "node " + m.port + " still sees stopped node " + n.port() + " serving "
                + n.slots() + " slots";
          }
          if (live) {
            // Roles too: a restarted primary calls itself one until it learns it was replaced.
            owners.put(n.port(), (n.primary() ? "primary:" : "replica:") + n.slots());
          }
        }
        String view = owners.toString();
        if (agreed == null) {
          agreed = view;
        } else if (!agreed.equals(view)) {
          return "nodes disagree on roles or slots: " + agreed + " vs " + view + " at node "
              + m.port;
        }
      } catch (IOException e) {
        return "node " + m.port + " does not answer: " + e.getMessage();
      }
    }
    return agreed == null ? "no node is running" : null;
  }

  /**
   * Returns the nodes as a live node describes them ({@code CLUSTER NODES}): primaries first, in
   * port order, then replicas.
   *
   * @throws IllegalStateException if no node answers
   */
  public List<Node> nodes() {
    for (Member m : members) {
      if (m.isAlive()) {
        try {
          List<Node> nodes = new ArrayList<>(parseNodes((String) call(m.port, "CLUSTER", "NODES")));
          nodes.sort((a, b) -> a.primary() != b.primary() ? (a.primary() ? -1 : 1)
              : Integer.compare(a.port(), b.port()));
          return nodes;
        } catch (IOException e) {
          // try the next node
        }
      }
    }
    throw new IllegalStateException("no node of the redis cluster answers CLUSTER NODES");
  }

  /** Returns the live primaries that serve slots, in port order. */
  public List<Node> primaries() {
    return nodes().stream().filter(n -> n.primary() && n.slots() > 0 && !n.failed()).toList();
  }

  /**
   * Moves {@code count} slots, keys included, from the other primaries to {@code to} with
   * {@code redis-cli --cluster reshard}, as an operator rebalancing a live cluster would: slot by
   * slot, keys copied with {@code MIGRATE}, so clients meet {@code ASK} and then {@code MOVED}
   * redirections meanwhile. Returns once it is done and the cluster is healthy.
   *
   * @return how long the resharding took
   * @throws IllegalStateException if redis-cli fails
   */
  public Duration moveSlots(int count, Node to) {
    long start = System.nanoTime();
    List<String> command = new ArrayList<>(cli());
    command.addAll(List.of("--cluster", "reshard", to.address(), "--cluster-from", "all",
        "--cluster-to", to.id(), "--cluster-slots", Integer.toString(count), "--cluster-yes"));
    ManagedProcess reshard = ManagedProcess.start("redis-cluster-reshard-" + to.port(), command,
        Map.of());
    int exit = reshard.awaitExit(Duration.ofMinutes(5));
    if (exit != 0) {
      throw new IllegalStateException("redis-cli --cluster reshard exited with " + exit + "\n"
          + reshard.logTails());
    }
    awaitHealthy(HEALTHY_TIMEOUT);
    return Duration.ofNanos(System.nanoTime() - start);
  }

  /**
   * Deletes every key ({@code FLUSHALL} on each primary).
   *
   * @throws IllegalStateException if a primary refuses
   */
  public void flushAll() {
    for (Node n : primaries()) {
      try {
        call(n.port(), "FLUSHALL");
      } catch (IOException e) {
        throw new IllegalStateException("FLUSHALL failed on " + n.address() + ": " + e.getMessage(), e);
      }
    }
  }

  /** Returns the number of keys each live primary holds ({@code DBSIZE}), by node. */
  public Map<Node, Long> keysPerPrimary() {
    Map<Node, Long> keys = new LinkedHashMap<>();
    for (Node n : primaries()) {
      try {
        keys.put(n, (Long) call(n.port(), "DBSIZE"));
      } catch (IOException e) {
        throw new IllegalStateException("DBSIZE failed on " + n.address() + ": " + e.getMessage(), e);
      }
    }
    return keys;
  }

  /** Returns {@code 127.0.0.1}. */
  public String host() {
    return "127.0.0.1";
  }

  /**
   * Returns {@code 127.0.0.1:<port>} of every node, the seed list a client needs.
   *
   * @throws IllegalStateException if the cluster was never started
   */
  public List<String> addresses() {
    if (members.isEmpty()) {
      throw new IllegalStateException("the redis cluster was never started: call start() first");
    }
    return members.stream().map(m -> "127.0.0.1:" + m.port).toList();
  }

  /** Returns {@code redis://127.0.0.1:<port>} ({@code rediss://} with TLS) of every node. */
  public List<String> uris() {
    return addresses().stream().map(a -> (tls ? "rediss://" : "redis://") + a).toList();
  }

  /** Returns the CA and certificate of a TLS cluster, issued on its first start; else empty. */
  public Optional<TestCertificates> tlsCertificates() {
    return Optional.ofNullable(certificates);
  }

  private List<String> cli() {
    List<String> command = new ArrayList<>(List.of(
        Prerequisites.onPath("redis-cli", Path.of("/usr/bin/redis-cli")).toString()));
    if (tls) {
      command.addAll(List.of("--tls", "--cacert", certificates.caCertificate().toString()));
    }
    return command;
  }

  private boolean answersPing(int port) {
    try {
      return "PONG".equals(call(port, "PING"));
    } catch (IOException e) {
      return false;
    }
  }

  private Object call(int port, String... command) throws IOException {
    if (tls && clientContext == null) {
      clientContext = certificates.clientContext();
    }
    return Resp.call(port, clientContext, null, command);
  }

  private Member member(int port) {
    Member m = memberOrNull(port);
    if (m == null) {
      throw new IllegalArgumentException("port " + port + " is not a node of " + this);
    }
    return m;
  }

  private Member memberOrNull(int port) {
    for (Member m : members) {
      if (m.port == port) {
        return m;
      }
    }
    return null;
  }

  /** Parses {@code CLUSTER NODES}: id, ip:port@bus, flags, master, ping, pong, epoch, link, slots. */
  static List<Node> parseNodes(String text) {
    List<Node> nodes = new ArrayList<>();
    for (String line : text.split("\n")) {
      String[] f = line.trim().split(" ");
      if (f.length < 8) {
        continue;
      }
      String address = f[1].contains("@") ? f[1].substring(0, f[1].indexOf('@')) : f[1];
      int port = Integer.parseInt(address.substring(address.lastIndexOf(':') + 1));
      List<String> flags = List.of(f[2].split(","));
      boolean primary = flags.contains("master");
      int slots = 0;
      for (int i = 8; i < f.length; i++) {
        if (f[i].startsWith("[")) {
          continue; // a slot being migrated or imported
        }
        int dash = f[i].indexOf('-');
        slots += dash < 0 ? 1
            : Integer.parseInt(f[i].substring(dash + 1)) - Integer.parseInt(f[i].substring(0, dash)) + 1;
      }
      nodes.add(new Node(f[0], port, primary, primary ? null : f[3], slots,
          flags.contains("fail") || flags.contains("fail?")));
    }
    return nodes;
  }

  @Override
  public String toString() {
    return "RedisCluster[" + (members.isEmpty() ? "not started" : String.join(",", addresses()))
        + (isRunning() ? "" : ", not all running") + "]";
  }
}
