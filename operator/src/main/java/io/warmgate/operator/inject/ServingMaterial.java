package io.warmgate.operator.inject;

import java.security.PrivateKey;
import java.security.cert.X509Certificate;
import java.util.List;
import java.util.Optional;

/**
 * What the webhook serves with.
 *
 * @param key the serving key
 * @param chain the serving certificate first, then any intermediates
 * @param caPem the PEM CA that clients must trust, when the operator knows it (it issued it);
 *     empty when another party (cert-manager) keeps the webhook configuration's caBundle
 */
record ServingMaterial(PrivateKey key, List<X509Certificate> chain, Optional<String> caPem) {}
