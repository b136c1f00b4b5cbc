package io.warmgate.operator.inject;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.javaoperatorsdk.webhook.admission.AdmissionController;
import io.micrometer.core.instrument.MeterRegistry;
import io.warmgate.operator.revision.Revisions;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.security.cert.X509Certificate;
import java.time.Clock;
import java.util.List;
import java.util.Set;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The pod-injection webhook: an HTTPS endpoint that adds a CachePolicy's agent environment to the
 * pods labelled {@value PodInjector#POLICY_LABEL}, its certificate, and (self-signed mode) the
 * caBundle of its MutatingWebhookConfiguration.
 *
 * <p>Runs in every replica, leader or not. Every {@link WebhookSettings#refreshInterval()} the
 * certificate is re-read or renewed and the caBundle re-checked; a failure there is logged and
 * retried, the server keeps serving the certificate it has.
 */
public final class InjectionWebhook implements AutoCloseable {

  private static final Logger log = LoggerFactory.getLogger(InjectionWebhook.class);

  private final PolicyLookup policies;
  private final ServingKeyManager keys = new ServingKeyManager();
  private final Supplier<ServingMaterial> material;
  private final CaBundleKeeper caBundle;
  private final WebhookServer server;
  private final ScheduledExecutorService refresher;

  private InjectionWebhook(WebhookSettings settings, Set<String> namespaces,
      KubernetesClient client, MeterRegistry registry, CaRotation.Lifetimes lifetimes,
      Clock clock) throws IOException {
    if (settings.certMode() == WebhookSettings.CertMode.SelfSigned) {
      SelfSignedCertificates issued = new SelfSignedCertificates(client, settings.namespace(),
          settings.certSecret(), settings.hosts(), lifetimes, clock);
      material = issued::get;
      caBundle = new CaBundleKeeper(client, settings.configuration());
    } else {
      material = new CertificateFiles(settings.certDir())::get;
      caBundle = null;
    }
    refresh(true);
    policies = new PolicyLookup(client, namespaces);
    try {
      PodInjectionHandler handler = new PodInjectionHandler(policies::find, policies::watches,
          (namespace, deployment) -> Revisions.drivenByFlagger(client, namespace, deployment),
          new InjectionEvents(client, Clock.systemUTC()), registry);
      server = new WebhookServer(settings.port(), keys, new AdmissionController<Pod>(handler),
          client.getKubernetesSerialization());
    } catch (IOException | RuntimeException e) {
      policies.close();
      throw e;
    }
    refresher = Executors.newSingleThreadScheduledExecutor(r -> {
      Thread t = new Thread(r, "warmgate-webhook-certificate");
      t.setDaemon(true);
      return t;
    });
    long every = settings.refreshInterval().toMillis();
    refresher.scheduleWithFixedDelay(() -> refresh(false), every, every, TimeUnit.MILLISECONDS);
  }

  /**
   * Obtains the certificate, starts the policy informers and serves HTTPS on the configured port.
   *
   * @param namespaces the namespaces whose pods are configured; empty for all
   * @throws IllegalStateException if no usable certificate can be obtained
   * @throws UncheckedIOException if the port cannot be opened
   */
  public static InjectionWebhook start(WebhookSettings settings, Set<String> namespaces,
      KubernetesClient client, MeterRegistry registry) {
    return start(settings, namespaces, client, registry, CaRotation.Lifetimes.DEFAULT,
        Clock.systemUTC());
  }

  /** {@link #start}, with self-signed certificates of the given lifetimes, on {@code clock}. */
  static InjectionWebhook start(WebhookSettings settings, Set<String> namespaces,
      KubernetesClient client, MeterRegistry registry, CaRotation.Lifetimes lifetimes,
      Clock clock) {
    try {
      InjectionWebhook webhook =
          new InjectionWebhook(settings, namespaces, client, registry, lifetimes, clock);
      log.info("Pod-injection webhook serves https on port {}{} ({} certificate)", webhook.port(),
          WebhookServer.PATH, settings.certMode());
      return webhook;
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot open the webhook port " + settings.port()
          + "; set WARMGATE_WEBHOOK_PORT to a free port", e);
    }
  }

  /** The HTTPS port serving {@value WebhookServer#PATH}. */
  public int port() {
    return server.port();
  }

  /** The certificate being served, leaf first. */
  public List<X509Certificate> certificateChain() {
    return keys.chain();
  }

  private void refresh(boolean initial) {
    try {
      ServingMaterial next = material.get();
      List<X509Certificate> served = keys.chain();
      if (served.isEmpty() || !served.get(0).equals(next.chain().get(0))) {
        keys.use(next.key(), next.chain());
        if (!initial) {
          log.info("The webhook now serves the certificate valid until {}",
              next.chain().get(0).getNotAfter().toInstant());
        }
      }
      if (caBundle != null && next.caPem().isPresent()) {
        caBundle.ensure(next.caPem().get());
      }
    } catch (RuntimeException e) {
      if (initial && keys.chain().isEmpty()) {
        throw new IllegalStateException("The pod-injection webhook has no certificate: "
            + e.getMessage(), e);
      }
      log.warn("Could not refresh the webhook's certificate or caBundle; retrying later: {}",
          e.getMessage());
    }
  }

  @Override
  public void close() {
    refresher.shutdownNow();
    server.close();
    policies.close();
  }
}
