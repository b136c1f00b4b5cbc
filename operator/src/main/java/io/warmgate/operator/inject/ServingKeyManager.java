package io.warmgate.operator.inject;

import java.io.IOException;
import java.net.Socket;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.Principal;
import java.security.PrivateKey;
import java.security.cert.X509Certificate;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.X509ExtendedKeyManager;
import javax.net.ssl.X509KeyManager;

/**
 * The webhook server's key manager, whose certificate can be replaced while it serves (rotation,
 * cert-manager renewal) without restarting the listener. Thread-safe: each certificate has its own
 * alias and the previous one stays resolvable, so a handshake that chose an alias just before a
 * replacement still gets the matching chain and key.
 */
final class ServingKeyManager extends X509ExtendedKeyManager {

  private record Entry(String alias, X509KeyManager manager, List<X509Certificate> chain) {}

  private static final char[] PASSWORD = "in-memory".toCharArray();

  private final AtomicInteger generation = new AtomicInteger();
  private final AtomicReference<Entry> current = new AtomicReference<>();
  private final AtomicReference<Entry> previous = new AtomicReference<>();

  /** Serves {@code chain} (leaf first) with {@code key} from now on. */
  void use(PrivateKey key, List<X509Certificate> chain) {
    String alias = "webhook-" + generation.incrementAndGet();
    try {
      KeyStore store = KeyStore.getInstance("PKCS12");
      store.load(null, null);
      store.setKeyEntry(alias, key, PASSWORD, chain.toArray(X509Certificate[]::new));
      KeyManagerFactory factory =
          KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
      factory.init(store, PASSWORD);
      X509KeyManager manager = (X509KeyManager) factory.getKeyManagers()[0];
      previous.set(current.getAndSet(new Entry(alias, manager, List.copyOf(chain))));
    } catch (GeneralSecurityException | IOException e) {
      throw new IllegalArgumentException("the webhook's key does not match its certificate "
          + chain.get(0).getSubjectX500Principal() + ": " + e.getMessage(), e);
    }
  }

  /** The chain being served, leaf first; empty before the first {@link #use}. */
  List<X509Certificate> chain() {
    Entry entry = current.get();
    return entry == null ? List.of() : entry.chain();
  }

  private Entry byAlias(String alias) {
    for (Entry entry : new Entry[] {current.get(), previous.get()}) {
      if (entry != null && entry.alias().equals(alias)) {
        return entry;
      }
    }
    return null;
  }

  private String currentAlias() {
    Entry entry = current.get();
    return entry == null ? null : entry.alias();
  }

  @Override
  public String chooseEngineServerAlias(String keyType, Principal[] issuers, SSLEngine engine) {
    return currentAlias();
  }

  @Override
  public String chooseServerAlias(String keyType, Principal[] issuers, Socket socket) {
    return currentAlias();
  }

  @Override
  public String[] getServerAliases(String keyType, Principal[] issuers) {
    String alias = currentAlias();
    return alias == null ? null : new String[] {alias};
  }

  @Override
  public X509Certificate[] getCertificateChain(String alias) {
    Entry entry = byAlias(alias);
    return entry == null ? null : entry.manager().getCertificateChain(alias);
  }

  @Override
  public PrivateKey getPrivateKey(String alias) {
    Entry entry = byAlias(alias);
    return entry == null ? null : entry.manager().getPrivateKey(alias);
  }

  @Override
  public String[] getClientAliases(String keyType, Principal[] issuers) {
    return null;
  }

  @Override
  public String chooseClientAlias(String[] keyType, Principal[] issuers, Socket socket) {
    return null;
  }

  @Override
  public String chooseEngineClientAlias(String[] keyType, Principal[] issuers, SSLEngine engine) {
    return null;
  }
}
