package io.warmgate.testing;

import java.io.IOException;
import java.io.InputStream;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.KeyStore;
import java.security.SecureRandom;
import java.security.cert.Certificate;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.security.spec.ECGenParameterSpec;
import java.time.Duration;
import java.time.Instant;
import java.util.Date;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;
import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.asn1.x509.BasicConstraints;
import org.bouncycastle.asn1.x509.ExtendedKeyUsage;
import org.bouncycastle.asn1.x509.Extension;
import org.bouncycastle.asn1.x509.GeneralName;
import org.bouncycastle.asn1.x509.GeneralNames;
import org.bouncycastle.asn1.x509.KeyPurposeId;
import org.bouncycastle.asn1.x509.KeyUsage;
import org.bouncycastle.cert.X509v3CertificateBuilder;
import org.bouncycastle.cert.jcajce.JcaX509CertificateConverter;
import org.bouncycastle.cert.jcajce.JcaX509v3CertificateBuilder;
import org.bouncycastle.openssl.jcajce.JcaPEMWriter;
import org.bouncycastle.openssl.jcajce.JcaPKCS8Generator;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;
import org.bouncycastle.util.io.pem.PemObjectGenerator;

/**
 * A throw-away certificate authority and one server certificate it signed, for 127.0.0.1 and
 * {@code localhost}, written as PEM files: what a TLS-enabled {@code redis-server} needs
 * ({@code --tls-cert-file}, {@code --tls-key-file}, {@code --tls-ca-cert-file}) and what its
 * clients trust. ECDSA P-256, valid for a day. The JDK cannot issue certificates by itself, so
 * BouncyCastle signs them.
 *
 * @param caCertificate the CA's certificate (PEM): give it to clients as their trusted CA
 * @param serverCertificate the server's certificate (PEM)
 * @param serverKey the server's private key (PKCS#8 PEM)
 */
public record TestCertificates(Path caCertificate, Path serverCertificate, Path serverKey) {

  private static final SecureRandom RANDOM = new SecureRandom();

  /**
   * Issues a new CA and server certificate into {@code dir} ({@code ca.crt}, {@code server.crt},
   * {@code server.key}), replacing files of the same names.
   *
   * @throws IllegalStateException if the files cannot be written or the JDK lacks P-256
   */
  public static TestCertificates issue(Path dir) {
    try {
      Files.createDirectories(dir);
      Instant now = Instant.now();
      Date from = Date.from(now.minus(Duration.ofMinutes(5)));
      Date until = Date.from(now.plus(Duration.ofDays(1)));
      KeyPair caKeys = keyPair();
      X500Name caName = new X500Name("CN=warmgate test CA " + now.toEpochMilli());
      X509v3CertificateBuilder ca = new JcaX509v3CertificateBuilder(caName, serial(), from, until,
          caName, caKeys.getPublic())
          .addExtension(Extension.basicConstraints, true, new BasicConstraints(true))
          .addExtension(Extension.keyUsage, true,
              new KeyUsage(KeyUsage.keyCertSign | KeyUsage.cRLSign));
      X509Certificate caCert = sign(ca, caKeys);

      KeyPair serverKeys = keyPair();
      X509v3CertificateBuilder server = new JcaX509v3CertificateBuilder(caName, serial(), from,
          until, new X500Name("CN=localhost"), serverKeys.getPublic())
          .addExtension(Extension.basicConstraints, true, new BasicConstraints(false))
          .addExtension(Extension.keyUsage, true,
              new KeyUsage(KeyUsage.digitalSignature | KeyUsage.keyAgreement))
          .addExtension(Extension.extendedKeyUsage, false, new ExtendedKeyUsage(
              new KeyPurposeId[] {KeyPurposeId.id_kp_serverAuth, KeyPurposeId.id_kp_clientAuth}))
          .addExtension(Extension.subjectAlternativeName, false, new GeneralNames(new GeneralName[] {
              new GeneralName(GeneralName.iPAddress, "127.0.0.1"),
              new GeneralName(GeneralName.dNSName, "localhost")}));
      X509Certificate serverCert = sign(server, caKeys);

      TestCertificates files = new TestCertificates(dir.resolve("ca.crt"),
          dir.resolve("server.crt"), dir.resolve("server.key"));
      Files.writeString(files.caCertificate, pem(caCert), StandardCharsets.US_ASCII);
      Files.writeString(files.serverCertificate, pem(serverCert), StandardCharsets.US_ASCII);
      Files.writeString(files.serverKey, pem(new JcaPKCS8Generator(serverKeys.getPrivate(), null)),
          StandardCharsets.US_ASCII);
      return files;
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write test certificates to " + dir, e);
    } catch (GeneralSecurityException | org.bouncycastle.operator.OperatorCreationException e) {
      throw new IllegalStateException("cannot issue test certificates: " + e.getMessage(), e);
    }
  }

  /** Returns the CA certificate as PEM text. */
  public String caPem() {
    try {
      return Files.readString(caCertificate, StandardCharsets.US_ASCII);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Returns a TLS context that trusts exactly this CA. */
  public SSLContext clientContext() {
    try (InputStream in = Files.newInputStream(caCertificate)) {
      KeyStore trust = KeyStore.getInstance(KeyStore.getDefaultType());
      trust.load(null, null);
      int i = 0;
      for (Certificate c : CertificateFactory.getInstance("X.509").generateCertificates(in)) {
        trust.setCertificateEntry("ca-" + i++, c);
      }
      TrustManagerFactory tmf =
          TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
      tmf.init(trust);
      SSLContext context = SSLContext.getInstance("TLS");
      context.init(null, tmf.getTrustManagers(), RANDOM);
      return context;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("cannot trust " + caCertificate + ": " + e.getMessage(), e);
    }
  }

  private static KeyPair keyPair() throws GeneralSecurityException {
    KeyPairGenerator generator = KeyPairGenerator.getInstance("EC");
    generator.initialize(new ECGenParameterSpec("secp256r1"), RANDOM);
    return generator.generateKeyPair();
  }

  private static BigInteger serial() {
    return new BigInteger(64, RANDOM).add(BigInteger.ONE);
  }

  private static X509Certificate sign(X509v3CertificateBuilder builder, KeyPair issuer)
      throws GeneralSecurityException, org.bouncycastle.operator.OperatorCreationException {
    return new JcaX509CertificateConverter().getCertificate(
        builder.build(new JcaContentSignerBuilder("SHA256withECDSA").build(issuer.getPrivate())));
  }

  private static String pem(X509Certificate certificate) throws IOException {
    StringWriter text = new StringWriter();
    try (JcaPEMWriter writer = new JcaPEMWriter(text)) {
      writer.writeObject(certificate);
    }
    return text.toString();
  }

  private static String pem(PemObjectGenerator key) throws IOException {
    StringWriter text = new StringWriter();
    try (JcaPEMWriter writer = new JcaPEMWriter(text)) {
      writer.writeObject(key);
    }
    return text.toString();
  }
}
