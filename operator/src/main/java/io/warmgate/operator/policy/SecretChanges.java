package io.warmgate.operator.policy;

import io.javaoperatorsdk.operator.OperatorException;
import io.javaoperatorsdk.operator.processing.event.Event;
import io.javaoperatorsdk.operator.processing.event.ResourceID;
import io.javaoperatorsdk.operator.processing.event.source.AbstractEventSource;
import io.javaoperatorsdk.operator.processing.event.source.IndexerResourceCache;
import io.warmgate.operator.model.CachePolicy;
import io.warmgate.operator.model.CaCertificateRef;
import io.warmgate.operator.model.SecretKeyRef;
import io.warmgate.operator.model.ValkeySpec;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Follows the Secrets policies name without watching them (the operator may only {@code get}
 * Secrets, see {@link SecretReader}): every recheck interval it reads each Secret it holds a value
 * of again, one {@code get} per Secret however many policies name it, and reconciles the policies
 * naming one that changed. An idle policy therefore needs no timer of its own to notice a changed
 * password or CA.
 */
final class SecretChanges extends AbstractEventSource<Void, CachePolicy> {

  static final String NAME = "named-secrets";
  private static final String SECRET_INDEX = "warmgate-secret";
  private static final Logger log = LoggerFactory.getLogger(SecretChanges.class);

  private final SecretReader reader;
  private final IndexerResourceCache<CachePolicy> policies;
  private final Duration every;
  private ScheduledExecutorService timer;

  /** Adds to {@code policies} the index of the Secrets each names. */
  SecretChanges(SecretReader reader, IndexerResourceCache<CachePolicy> policies, Duration every) {
    super(Void.class, NAME);
    this.reader = reader;
    this.policies = policies;
    this.every = every;
    policies.addIndexer(SECRET_INDEX, SecretChanges::secretsNamed);
  }

  /** {@code <namespace>/<name>} of each Secret the policy's Valkey settings name. */
  static List<String> secretsNamed(CachePolicy policy) {
    ValkeySpec valkey = policy.getSpec() == null ? null : policy.getSpec().getValkey();
    List<String> names = new ArrayList<>();
    if (valkey != null) {
      SecretKeyRef password = valkey.getPasswordSecretKeyRef();
      if (password != null && password.getName() != null) {
        names.add(key(policy.getMetadata().getNamespace(), password.getName()));
      }
      CaCertificateRef ca = valkey.getTlsCaSecretRef();
      if (ca != null && ca.getName() != null) {
        names.add(key(policy.getMetadata().getNamespace(), ca.getName()));
      }
    }
    return names;
  }

  private static String key(String namespace, String name) {
    return namespace + "/" + name;
  }

  @Override
  public synchronized void start() throws OperatorException {
    super.start();
    timer = Executors.newSingleThreadScheduledExecutor(r -> {
      Thread t = new Thread(r, "warmgate-secret-recheck");
      t.setDaemon(true);
      return t;
    });
    timer.scheduleWithFixedDelay(this::recheck, every.toMillis(), every.toMillis(),
        TimeUnit.MILLISECONDS);
  }

  @Override
  public synchronized void stop() throws OperatorException {
    if (timer != null) {
      timer.shutdownNow();
      timer = null;
    }
    super.stop();
  }

  /** Reads the Secrets again and reconciles the policies naming one that changed. */
  void recheck() {
    try {
      for (ResourceID secret : reader.reread()) {
        String name = key(secret.getNamespace().orElseThrow(), secret.getName());
        List<CachePolicy> naming = policies.byIndex(SECRET_INDEX, name);
        log.info("Secret {} changed; reconciling the {} policies naming it", name, naming.size());
        naming.forEach(p -> getEventHandler().handleEvent(new Event(ResourceID.fromResource(p))));
      }
    } catch (RuntimeException e) {
      // Anything unexpected must not end the timer; the next round tries again.
      log.warn("Reading the named Secrets again failed", e);
    }
  }

  @Override
  public Set<Void> getSecondaryResources(CachePolicy primary) {
    return Set.of();
  }
}
