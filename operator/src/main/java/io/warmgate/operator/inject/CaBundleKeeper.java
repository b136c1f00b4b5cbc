package io.warmgate.operator.inject;

import io.fabric8.kubernetes.api.model.admissionregistration.v1.MutatingWebhook;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.MutatingWebhookConfiguration;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps the {@code caBundle} of every webhook in one MutatingWebhookConfiguration equal to the CA
 * the operator issued, so the API server trusts the serving certificate. A missing configuration
 * is not an error: it may be installed after the operator starts.
 */
final class CaBundleKeeper {

  private static final Logger log = LoggerFactory.getLogger(CaBundleKeeper.class);

  private final KubernetesClient client;
  private final String configuration;
  private volatile boolean reportedMissing;

  CaBundleKeeper(KubernetesClient client, String configuration) {
    this.client = client;
    this.configuration = configuration;
  }

  /**
   * Sets the caBundle to {@code caPem} where it differs.
   *
   * @return whether the configuration was patched
   * @throws io.fabric8.kubernetes.client.KubernetesClientException if it cannot be read or patched
   */
  boolean ensure(String caPem) {
    String bundle = Base64.getEncoder().encodeToString(caPem.getBytes(StandardCharsets.US_ASCII));
    MutatingWebhookConfiguration current = client.admissionRegistration().v1()
        .mutatingWebhookConfigurations().withName(configuration).get();
    if (current == null) {
      if (!reportedMissing) {
        reportedMissing = true;
        log.warn("MutatingWebhookConfiguration {} does not exist yet; its caBundle will be set "
            + "once it does (WARMGATE_WEBHOOK_CONFIGURATION names it)", configuration);
      }
      return false;
    }
    reportedMissing = false;
    if (current.getWebhooks().stream().allMatch(w -> bundle.equals(caBundle(w)))) {
      return false;
    }
    // edit() sends the difference as a JSON Patch computed by the client.
    client.admissionRegistration().v1().mutatingWebhookConfigurations().withName(configuration)
        .edit(c -> {
          c.getWebhooks().forEach(w -> w.getClientConfig().setCaBundle(bundle));
          return c;
        });
    log.info("Set the caBundle of MutatingWebhookConfiguration {}", configuration);
    return true;
  }

  private static String caBundle(MutatingWebhook webhook) {
    return webhook.getClientConfig() == null ? null : webhook.getClientConfig().getCaBundle();
  }
}
