package io.warmgate.operator.inject;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;

/**
 * A serving certificate mounted from a Secret ({@code tls.crt}, {@code tls.key}, as cert-manager
 * writes them), read again on every {@link #get()} so a renewal is picked up without a restart.
 * Whoever issues it keeps the webhook configuration's caBundle (cert-manager's CA injector).
 */
final class CertificateFiles {

  private final Path directory;

  CertificateFiles(Path directory) {
    this.directory = directory;
  }

  /**
   * The mounted material.
   *
   * @throws IllegalStateException naming the file and the fix when a file is missing or malformed
   */
  ServingMaterial get() {
    String certificate = read(SelfSignedCertificates.TLS_CERT);
    String key = read(SelfSignedCertificates.TLS_KEY);
    try {
      return new ServingMaterial(Certificates.parseKey(key),
          Certificates.parseCertificates(certificate), Optional.empty());
    } catch (IllegalArgumentException e) {
      throw new IllegalStateException("The webhook certificate in " + directory + " is unusable: "
          + e.getMessage() + "; mount a kubernetes.io/tls Secret there (tls.crt, tls.key)", e);
    }
  }

  private String read(String name) {
    Path file = directory.resolve(name);
    try {
      return Files.readString(file, StandardCharsets.US_ASCII);
    } catch (IOException e) {
      throw new IllegalStateException("Cannot read the webhook's " + name + " at " + file
          + "; mount a kubernetes.io/tls Secret at " + directory + " (WARMGATE_WEBHOOK_CERT_DIR) or"
          + " set WARMGATE_WEBHOOK_CERT_MODE=SelfSigned", new UncheckedIOException(e));
    }
  }
}
