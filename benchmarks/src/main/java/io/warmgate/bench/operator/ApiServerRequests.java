package io.warmgate.bench.operator;

import io.fabric8.kubernetes.client.KubernetesClient;
import java.util.function.Predicate;

/**
 * The requests the API server has served, from its own {@code apiserver_request_total}: every
 * client's, the server's own loopback calls included, so a rate is read against a window with no
 * operator running. Requests to non-resource paths (such as this reading's own {@code /metrics})
 * are left out.
 */
final class ApiServerRequests {

  private final KubernetesClient client;

  ApiServerRequests(KubernetesClient client) {
    this.client = client;
  }

  /** Resource requests served so far, every verb and response code. */
  long served() {
    // Not subresource="", which every plain request has.
    return count(line -> !line.contains(",resource=\"\"") && !line.contains("{resource=\"\""));
  }

  /** Requests with {@code verb} (such as {@code LIST}) on {@code resource} served so far. */
  long served(String verb, String resource) {
    return count(line -> line.contains("verb=\"" + verb + "\"")
        && (line.contains(",resource=\"" + resource + "\"")
            || line.contains("{resource=\"" + resource + "\"")));
  }

  private long count(Predicate<String> counted) {
    String text = client.raw(client.getMasterUrl().toString().replaceAll("/$", "") + "/metrics");
    if (text == null) {
      throw new IllegalStateException("the API server's /metrics answered nothing");
    }
    long total = 0;
    boolean found = false;
    for (String line : text.split("\n")) {
      if (line.startsWith("apiserver_request_total{")) {
        found = true;
        if (counted.test(line)) {
          total += (long) Double.parseDouble(line.substring(line.lastIndexOf('}') + 1).trim());
        }
      }
    }
    if (!found) {
      throw new IllegalStateException("the API server's /metrics has no apiserver_request_total");
    }
    return total;
  }
}
