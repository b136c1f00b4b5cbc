package io.warmgate.operator.policy;

import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.javaoperatorsdk.operator.processing.event.ResourceID;
import java.net.HttpURLConnection;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

/**
 * Reads the Secrets that policies name, one {@code get} by name each, and keeps what it read for
 * a short while. It never lists or watches Secrets, so the operator needs only {@code get} on
 * Secrets, in the namespaces whose policies it serves, and holds in memory only the keys that
 * policies name, however many other Secrets the cluster has.
 *
 * <p>A changed Secret is seen at the latest {@link #MAX_AGE} after the change, on the next pass
 * of a policy that names it. Thread-safe; at most {@link #CAPACITY} values are kept, the least
 * recently used dropped first.
 */
final class SecretReader {

  /** How long a value read (or a Secret found missing) is used before it is read again. */
  static final Duration MAX_AGE = Duration.ofSeconds(5);
  /** How many Secret keys are kept at most. */
  static final int CAPACITY = 1024;

  private final KubernetesClient client;
  private final Clock clock;
  private final Map<Key, Read> reads = new LinkedHashMap<>(16, 0.75f, true) {
    @Override
    protected boolean removeEldestEntry(Map.Entry<Key, Read> eldest) {
      return size() > CAPACITY;
    }
  };

  SecretReader(KubernetesClient client, Clock clock) {
    this.client = client;
    this.clock = clock;
  }

  /** What reading one key of one Secret found. */
  enum Found { VALUE, NO_SECRET, NO_KEY, FORBIDDEN }

  /**
   * One key of one Secret as read.
   *
   * @param found what was found
   * @param value the key's value when {@code found} is {@link Found#VALUE}, else null
   */
  record Read(Found found, char[] value, Instant at) {}

  private record Key(ResourceID secret, String key) {}

  /**
   * The value under {@code key} of Secret {@code namespace/name}, read at most {@link #MAX_AGE}
   * ago.
   *
   * @throws KubernetesClientException when the API server cannot be reached or answers with an
   *     error other than not-found or forbidden (the caller's pass fails and is retried)
   */
  Read read(String namespace, String name, String key) {
    Key id = new Key(new ResourceID(name, namespace), key);
    Instant now = clock.instant();
    synchronized (reads) {
      Read kept = reads.get(id);
      if (kept != null && kept.at().plus(MAX_AGE).isAfter(now)) {
        return kept;
      }
    }
    Read read = fetch(namespace, name, key, now);
    synchronized (reads) {
      reads.put(id, read);
    }
    return read;
  }

  private Read fetch(String namespace, String name, String key, Instant now) {
    Secret secret;
    try {
      secret = client.secrets().inNamespace(namespace).withName(name).get();
    } catch (KubernetesClientException e) {
      if (e.getCode() == HttpURLConnection.HTTP_FORBIDDEN) {
        return new Read(Found.FORBIDDEN, null, now);
      }
      throw e;
    }
    if (secret == null) {
      return new Read(Found.NO_SECRET, null, now);
    }
    return Optional.ofNullable(value(secret, key))
        .map(v -> new Read(Found.VALUE, v, now))
        .orElseGet(() -> new Read(Found.NO_KEY, null, now));
  }

  private static char[] value(Secret secret, String key) {
    Map<String, String> data = secret.getData();
    if (data != null && data.get(key) != null) {
      byte[] decoded = Base64.getDecoder().decode(data.get(key));
      return new String(decoded, StandardCharsets.UTF_8).toCharArray();
    }
    Map<String, String> stringData = secret.getStringData();
    if (stringData != null && stringData.get(key) != null) {
      return stringData.get(key).toCharArray();
    }
    return null;
  }
}
