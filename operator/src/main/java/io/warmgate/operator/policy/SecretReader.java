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
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reads the Secrets that policies name, one {@code get} by name each, and keeps what it read for
 * a short while. It never lists or watches Secrets, so the operator needs only {@code get} on
 * Secrets, in the namespaces whose policies it serves, and holds in memory only the keys that
 * policies name, however many other Secrets the cluster has.
 *
 * <p>A changed Secret is seen at the latest {@link #MAX_AGE} after the change, on the next pass
 * of a policy that names it, or when {@link #reread} reads it again ({@link SecretChanges}, once
 * per Secret every recheck interval, however many policies name it). Thread-safe; at most
 * {@link #CAPACITY} values are kept, the least recently used dropped first.
 */
final class SecretReader {

  private static final Logger log = LoggerFactory.getLogger(SecretReader.class);

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

  /**
   * Reads every Secret a kept value came from again, one {@code get} per Secret, keeps what it
   * read, and returns the Secrets of which a kept key now reads differently (another value, or
   * found where it was missing, or the reverse). A Secret that cannot be read now (the API server
   * away) is left as it was and tried again next time.
   */
  Set<ResourceID> reread() {
    Map<ResourceID, List<String>> keysBySecret = new LinkedHashMap<>();
    synchronized (reads) {
      reads.keySet().forEach(k ->
          keysBySecret.computeIfAbsent(k.secret(), s -> new ArrayList<>()).add(k.key()));
    }
    Set<ResourceID> changed = new LinkedHashSet<>();
    Instant now = clock.instant();
    keysBySecret.forEach((secret, keys) -> {
      Fetched fetched;
      try {
        fetched = fetchSecret(secret.getNamespace().orElseThrow(), secret.getName());
      } catch (KubernetesClientException e) {
        log.debug("Reading Secret {} again failed; trying again next time", secret, e);
        return;
      }
      for (String key : keys) {
        Read read = fetched.read(key, now);
        Read kept;
        synchronized (reads) {
          kept = reads.put(new Key(secret, key), read);
        }
        if (kept == null || kept.found() != read.found()
            || !Arrays.equals(kept.value(), read.value())) {
          changed.add(secret);
        }
      }
    });
    return changed;
  }

  private Read fetch(String namespace, String name, String key, Instant now) {
    return fetchSecret(namespace, name).read(key, now);
  }

  /** One {@code get} of a Secret: the Secret, null when it does not exist, or forbidden. */
  private record Fetched(Secret secret, boolean forbidden) {

    Read read(String key, Instant now) {
      if (forbidden) {
        return new Read(Found.FORBIDDEN, null, now);
      }
      if (secret == null) {
        return new Read(Found.NO_SECRET, null, now);
      }
      return Optional.ofNullable(value(secret, key))
          .map(v -> new Read(Found.VALUE, v, now))
          .orElseGet(() -> new Read(Found.NO_KEY, null, now));
    }
  }

  /** @throws KubernetesClientException on an error other than forbidden */
  private Fetched fetchSecret(String namespace, String name) {
    try {
      return new Fetched(client.secrets().inNamespace(namespace).withName(name).get(), false);
    } catch (KubernetesClientException e) {
      if (e.getCode() == HttpURLConnection.HTTP_FORBIDDEN) {
        return new Fetched(null, true);
      }
      throw e;
    }
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
