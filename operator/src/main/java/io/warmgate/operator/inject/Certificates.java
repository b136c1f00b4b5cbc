package io.warmgate.operator.inject;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.StringReader;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.PrivateKey;
import java.security.SecureRandom;
import java.security.cert.CertificateException;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.security.spec.ECGenParameterSpec;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Date;
import java.util.List;
import org.bouncycastle.asn1.pkcs.PrivateKeyInfo;
import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.asn1.x509.BasicConstraints;
import org.bouncycastle.asn1.x509.ExtendedKeyUsage;
import org.bouncycastle.asn1.x509.Extension;
import org.bouncycastle.asn1.x509.GeneralName;
import org.bouncycastle.asn1.x509.GeneralNames;
import org.bouncycastle.asn1.x509.KeyPurposeId;
import org.bouncycastle.asn1.x509.KeyUsage;
import org.bouncycastle.cert.CertIOException;
import org.bouncycastle.cert.X509v3CertificateBuilder;
import org.bouncycastle.cert.jcajce.JcaX509CertificateConverter;
import org.bouncycastle.cert.jcajce.JcaX509ExtensionUtils;
import org.bouncycastle.cert.jcajce.JcaX509v3CertificateBuilder;
import org.bouncycastle.openssl.PEMKeyPair;
import org.bouncycastle.openssl.PEMParser;
import org.bouncycastle.openssl.jcajce.JcaPEMKeyConverter;
import org.bouncycastle.openssl.jcajce.JcaPEMWriter;
import org.bouncycastle.openssl.jcajce.JcaPKCS8Generator;
import org.bouncycastle.operator.OperatorCreationException;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;
import org.bouncycastle.util.io.pem.PemGenerationException;

/**
 * Issues ECDSA P-256 certificates (a CA and serving certificates it signs) and converts them
 * from and to PEM. Every method is stateless and thread-safe.
 */
final class Certificates {

  /**
   * A private key and its certificate.
   *
   * @param key the private key
   * @param certificate the certificate of the key's public half
   */
  record Issued(PrivateKey key, X509Certificate certificate) {

    String certificatePem() {
      return pem(certificate);
    }

    /** The key as PKCS#8 PEM ({@code PRIVATE KEY}). */
    String keyPem() {
      try {
        return pem(new JcaPKCS8Generator(key, null));
      } catch (PemGenerationException e) {
        throw new IllegalStateException("cannot encode a " + key.getAlgorithm() + " key", e);
      }
    }
  }

  private static final SecureRandom RANDOM = new SecureRandom();
  /** Tolerates clocks of other machines running slightly behind. */
  static final Duration BACKDATE = Duration.ofMinutes(5);

  private Certificates() {}

  /** A self-signed CA named {@code commonName}, valid for {@code validity} from now. */
  static Issued newCa(String commonName, Duration validity, Clock clock) {
    KeyPair keys = newKeyPair();
    X500Name name = new X500Name("CN=" + commonName);
    try {
      JcaX509ExtensionUtils utils = new JcaX509ExtensionUtils();
      X509v3CertificateBuilder builder = builder(name, name, keys, validity, clock)
          .addExtension(Extension.basicConstraints, true, new BasicConstraints(0))
          .addExtension(Extension.keyUsage, true,
              new KeyUsage(KeyUsage.keyCertSign | KeyUsage.cRLSign))
          .addExtension(Extension.subjectKeyIdentifier, false,
              utils.createSubjectKeyIdentifier(keys.getPublic()));
      return new Issued(keys.getPrivate(), sign(builder, keys.getPrivate()));
    } catch (GeneralSecurityException | CertIOException e) {
      throw new IllegalStateException("cannot issue the webhook CA " + commonName, e);
    }
  }

  /**
   * A serving certificate for {@code hosts} (DNS names or IP addresses), signed by {@code ca}.
   *
   * @throws IllegalArgumentException if {@code hosts} is empty
   */
  static Issued newServing(Issued ca, List<String> hosts, Duration validity, Clock clock) {
    if (hosts.isEmpty()) {
      throw new IllegalArgumentException("a serving certificate needs at least one host name");
    }
    KeyPair keys = newKeyPair();
    List<GeneralName> names = new ArrayList<>();
    for (String host : hosts) {
      names.add(new GeneralName(isIpAddress(host) ? GeneralName.iPAddress : GeneralName.dNSName,
          host));
    }
    try {
      JcaX509ExtensionUtils utils = new JcaX509ExtensionUtils();
      X509v3CertificateBuilder builder = builder(
          X500Name.getInstance(ca.certificate().getSubjectX500Principal().getEncoded()),
          new X500Name("CN=" + hosts.get(0)), keys, validity, clock)
          .addExtension(Extension.basicConstraints, true, new BasicConstraints(false))
          .addExtension(Extension.keyUsage, true, new KeyUsage(KeyUsage.digitalSignature))
          .addExtension(Extension.extendedKeyUsage, false,
              new ExtendedKeyUsage(KeyPurposeId.id_kp_serverAuth))
          .addExtension(Extension.subjectAlternativeName, false,
              new GeneralNames(names.toArray(GeneralName[]::new)))
          .addExtension(Extension.authorityKeyIdentifier, false,
              utils.createAuthorityKeyIdentifier(ca.certificate()));
      return new Issued(keys.getPrivate(), sign(builder, ca.key()));
    } catch (GeneralSecurityException | CertIOException e) {
      throw new IllegalStateException("cannot issue a webhook serving certificate for " + hosts,
          e);
    }
  }

  /** The DNS names and IP addresses a certificate is valid for. */
  static List<String> hosts(X509Certificate certificate) {
    try {
      if (certificate.getSubjectAlternativeNames() == null) {
        return List.of();
      }
      return certificate.getSubjectAlternativeNames().stream()
          .map(entry -> entry.get(1).toString()).toList();
    } catch (CertificateException e) {
      return List.of();
    }
  }

  static String pem(Object object) {
    StringWriter out = new StringWriter();
    try (JcaPEMWriter writer = new JcaPEMWriter(out)) {
      writer.writeObject(object);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return out.toString();
  }

  /**
   * Parses the certificates of a PEM bundle, first to last.
   *
   * @throws IllegalArgumentException if {@code pem} holds no certificate or a malformed one
   */
  static List<X509Certificate> parseCertificates(String pem) {
    try {
      List<X509Certificate> chain = CertificateFactory.getInstance("X.509")
          .generateCertificates(new ByteArrayInputStream(pem.getBytes(StandardCharsets.US_ASCII)))
          .stream().map(X509Certificate.class::cast).toList();
      if (chain.isEmpty()) {
        throw new IllegalArgumentException("no PEM certificate found");
      }
      return chain;
    } catch (CertificateException e) {
      throw new IllegalArgumentException("malformed PEM certificate: " + e.getMessage(), e);
    }
  }

  /**
   * Parses a PEM private key: PKCS#8 ({@code PRIVATE KEY}), PKCS#1 ({@code RSA PRIVATE KEY}) or
   * SEC 1 ({@code EC PRIVATE KEY}), as cert-manager and openssl write them.
   *
   * @throws IllegalArgumentException if {@code pem} holds no unencrypted private key
   */
  static PrivateKey parseKey(String pem) {
    try (PEMParser parser = new PEMParser(new StringReader(pem))) {
      Object object = parser.readObject();
      JcaPEMKeyConverter converter = new JcaPEMKeyConverter();
      if (object instanceof PEMKeyPair pair) {
        // SEC 1 keys may omit the public half; the private key info alone suffices.
        return converter.getPrivateKey(pair.getPrivateKeyInfo());
      }
      if (object instanceof PrivateKeyInfo info) {
        return converter.getPrivateKey(info);
      }
      throw new IllegalArgumentException("no unencrypted PEM private key found (got "
          + (object == null ? "nothing" : object.getClass().getSimpleName()) + ")");
    } catch (IOException e) {
      throw new IllegalArgumentException("malformed PEM private key: " + e.getMessage(), e);
    }
  }

  private static boolean isIpAddress(String host) {
    return host.matches("[0-9.]+") || host.contains(":");
  }

  private static X509v3CertificateBuilder builder(X500Name issuer, X500Name subject, KeyPair keys,
      Duration validity, Clock clock) {
    Instant now = clock.instant();
    return new JcaX509v3CertificateBuilder(issuer, new BigInteger(127, RANDOM).add(BigInteger.ONE),
        Date.from(now.minus(BACKDATE)), Date.from(now.plus(validity)), subject, keys.getPublic());
  }

  private static X509Certificate sign(X509v3CertificateBuilder builder, PrivateKey key)
      throws CertificateException {
    try {
      return new JcaX509CertificateConverter().getCertificate(
          builder.build(new JcaContentSignerBuilder("SHA256withECDSA").build(key)));
    } catch (OperatorCreationException e) {
      throw new IllegalStateException("cannot sign with " + key.getAlgorithm(), e);
    }
  }

  private static KeyPair newKeyPair() {
    try {
      KeyPairGenerator generator = KeyPairGenerator.getInstance("EC");
      generator.initialize(new ECGenParameterSpec("secp256r1"), RANDOM);
      return generator.generateKeyPair();
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("this JVM cannot generate ECDSA P-256 keys", e);
    }
  }
}
