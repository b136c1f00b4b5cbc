package io.warmgate.operator.valkey;

import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.resource.ClientResources;
import io.warmgate.operator.status.Reasons;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A standalone server: each address is PINGed, and the gate's commands go to the first. A kept
 * connection per address is reopened on demand (no background reconnects).
 */
final class StandaloneLink extends Link {

  private static final Logger log = LoggerFactory.getLogger(StandaloneLink.class);

  private final Map<String, StatefulRedisConnection<String, String>> connections =
      new LinkedHashMap<>();

  StandaloneLink(ValkeyEndpoint endpoint, Duration timeout, ClientResources resources) {
    super(endpoint, timeout, resources);
  }

  @Override
  ProbeResult probe() {
    for (String address : endpoint.addresses()) {
      StatefulRedisConnection<String, String> connection;
      try {
        connection = ping(address);
      } catch (RuntimeException e) {
        return failed(address, e);
      }
      try {
        if (clusterEnabled(connection)) {
          return ProbeResult.failed(Reasons.MODE_MISMATCH, "Valkey at " + address + " runs in "
              + "cluster mode, but spec.valkey.mode is Standalone, so agents would be redirected "
              + "on most keys; set spec.valkey.mode: Cluster");
        }
      } catch (RuntimeException e) {
        // INFO may be refused by an ACL that allows the data commands: not a reason to fail.
        log.debug("INFO cluster on {} failed; taking it as standalone", address, e);
      }
    }
    String first = endpoint.addresses().get(0);
    return new ProbeResult(true, Reasons.CONNECTED, "Valkey answered PING at "
        + String.join(", ", endpoint.addresses()), unprotected(first));
  }

  @Override
  ValkeyCommands commands() {
    StatefulRedisConnection<String, String> connection = connection(endpoint.addresses().get(0));
    return new ValkeyCommands(connection.sync(), connection.async());
  }

  /** PINGs {@code address}, reconnecting once when the kept connection turns out broken. */
  private synchronized StatefulRedisConnection<String, String> ping(String address) {
    StatefulRedisConnection<String, String> kept = connections.get(address);
    if (kept != null && kept.isOpen()) {
      try {
        kept.sync().ping();
        return kept;
      } catch (RuntimeException e) {
        log.debug("Kept connection to {} failed; reconnecting", address, e);
      }
    }
    discard(address);
    StatefulRedisConnection<String, String> fresh = connection(address);
    try {
      fresh.sync().ping();
      return fresh;
    } catch (RuntimeException e) {
      discard(address);
      throw e;
    }
  }

  /** The open connection to {@code address}, opened now when there is none or it closed. */
  private synchronized StatefulRedisConnection<String, String> connection(String address) {
    StatefulRedisConnection<String, String> kept = connections.get(address);
    if (kept != null && kept.isOpen()) {
      return kept;
    }
    discard(address);
    StatefulRedisConnection<String, String> fresh = single.connect(uri(address, true));
    connections.put(address, fresh);
    return fresh;
  }

  private void discard(String address) {
    StatefulRedisConnection<String, String> broken = connections.remove(address);
    if (broken != null) {
      broken.closeAsync();
    }
  }

  @Override
  synchronized void close() {
    connections.values().stream().filter(StatefulRedisConnection::isOpen)
        .forEach(StatefulRedisConnection::closeAsync);
    connections.clear();
    super.close();
  }
}
