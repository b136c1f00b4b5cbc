package io.warmgate.operator.inject;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

class WebhookSettingsTest {

  @Test
  void defaultsAreDisabledSelfSignedInThePodNamespace() {
    WebhookSettings settings = WebhookSettings.fromEnvironment(Map.of(), "warmgate-system");

    assertThat(settings.enabled()).isFalse();
    assertThat(settings.port()).isEqualTo(8443);
    assertThat(settings.certMode()).isEqualTo(WebhookSettings.CertMode.SelfSigned);
    assertThat(settings.namespace()).isEqualTo("warmgate-system");
    assertThat(settings.hosts()).containsExactly("warmgate-operator-webhook.warmgate-system.svc");
    assertThat(settings.certSecret()).isEqualTo("warmgate-operator-webhook-tls");
    assertThat(settings.configuration()).isEqualTo("warmgate-operator");
    assertThat(settings.refreshInterval()).isEqualTo(Duration.ofMinutes(1));
  }

  @Test
  void readsEveryVariable() {
    WebhookSettings settings = WebhookSettings.fromEnvironment(Map.of(
        "WARMGATE_WEBHOOK_ENABLED", "true",
        "WARMGATE_WEBHOOK_PORT", "0",
        "WARMGATE_WEBHOOK_CERT_MODE", "Files",
        "WARMGATE_WEBHOOK_CERT_DIR", "/certs",
        "WARMGATE_WEBHOOK_HOSTS", "a.svc, 127.0.0.1",
        "WARMGATE_WEBHOOK_CERT_REFRESH_INTERVAL", "5s"), null);

    assertThat(settings.enabled()).isTrue();
    assertThat(settings.port()).isZero();
    assertThat(settings.certMode()).isEqualTo(WebhookSettings.CertMode.Files);
    assertThat(settings.certDir()).isEqualTo(Path.of("/certs"));
    assertThat(settings.hosts()).containsExactly("a.svc", "127.0.0.1");
    assertThat(settings.refreshInterval()).isEqualTo(Duration.ofSeconds(5));
  }

  @Test
  void errorsNameTheVariableAndTheFix() {
    assertThatThrownBy(() -> WebhookSettings.fromEnvironment(
        Map.of("WARMGATE_WEBHOOK_CERT_MODE", "cert-manager"), "ns"))
        .hasMessage("WARMGATE_WEBHOOK_CERT_MODE='cert-manager' must be SelfSigned or Files");
    assertThatThrownBy(() -> WebhookSettings.fromEnvironment(
        Map.of("WARMGATE_WEBHOOK_ENABLED", "true"), null))
        .hasMessageContaining("set POD_NAMESPACE");
    assertThatThrownBy(() -> WebhookSettings.fromEnvironment(
        Map.of("WARMGATE_WEBHOOK_PORT", "https"), "ns"))
        .hasMessageContaining("WARMGATE_WEBHOOK_PORT='https'");
  }
}
