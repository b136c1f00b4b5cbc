package io.warmgate.bench.release;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The pods that receive traffic. A replaced pod leaves the rotation at once and is closed once the
 * requests routed to it have been answered, as a pod drains after its endpoint is removed.
 */
final class Fleet implements AutoCloseable {

  /** The longest a retired pod drains; requests still unanswered then fail as the pod stops. */
  private static final long DRAIN_MILLIS = 120_000;

  private final ReleaseEnv env;
  private final List<ReleasePod> live = new CopyOnWriteArrayList<>();
  private final List<ReleasePod> all = new CopyOnWriteArrayList<>();
  private final ExecutorService draining = Executors.newCachedThreadPool(Traffic.daemon("drain"));
  private final AtomicInteger started = new AtomicInteger();

  Fleet(ReleaseEnv env) {
    this.env = env;
  }

  List<ReleasePod> live() {
    return live;
  }

  /** Starts a pod of {@code version} and puts it in the rotation. */
  ReleasePod start(ReleasePod.Version version) {
    ReleasePod pod = create(version);
    all.add(pod);
    live.add(pod);
    return pod;
  }

  private ReleasePod create(ReleasePod.Version version) {
    return new ReleasePod(version.name().toLowerCase() + "-" + started.getAndIncrement(), version,
        env);
  }

  /** Starts a pod of {@code version} and then takes {@code old} out of the rotation. */
  ReleasePod replace(ReleasePod old, ReleasePod.Version version) {
    ReleasePod pod = start(version);
    retire(old);
    return pod;
  }

  /**
   * Replaces each of {@code old} with a new pod of {@code version}, starting the new pods
   * together as a ReplicaSet scaled up at once does, then taking the old ones out of the rotation.
   */
  void replaceAll(List<ReleasePod> old, ReleasePod.Version version) {
    List<ReleasePod> started = old.parallelStream().map(pod -> create(version)).toList();
    for (ReleasePod pod : started) {
      all.add(pod);
      live.add(pod);
    }
    old.forEach(this::retire);
  }

  /** Ids every pod this fleet ever started has reloaded ahead of expiry so far. */
  long refreshedIds() {
    return all.stream().mapToLong(ReleasePod::refreshedIds).sum();
  }

  /** Ids the pods of {@code version} this fleet ever started have reloaded ahead of expiry. */
  long refreshedIds(ReleasePod.Version version) {
    return all.stream().filter(pod -> pod.version() == version)
        .mapToLong(ReleasePod::refreshedIds).sum();
  }

  /** L2 commands past their bound, of every pod this fleet ever started, so far. */
  long l2PastBound() {
    return all.stream().mapToLong(ReleasePod::l2PastBound).sum();
  }

  /** The live pods of {@code version}. */
  List<ReleasePod> of(ReleasePod.Version version) {
    List<ReleasePod> pods = new ArrayList<>();
    for (ReleasePod pod : live) {
      if (pod.version() == version) {
        pods.add(pod);
      }
    }
    return pods;
  }

  private void retire(ReleasePod pod) {
    live.remove(pod);
    draining.execute(() -> {
      long deadline = System.currentTimeMillis() + DRAIN_MILLIS;
      try {
        while (pod.pending() > 0 && System.currentTimeMillis() < deadline) {
          Thread.sleep(20);
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      pod.close();
    });
  }

  /** Closes every pod, live or draining. */
  @Override
  public void close() throws InterruptedException {
    for (ReleasePod pod : live) {
      retire(pod);
    }
    draining.shutdown();
    draining.awaitTermination(3, TimeUnit.MINUTES);
  }
}
