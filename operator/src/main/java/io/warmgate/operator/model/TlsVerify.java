package io.warmgate.operator.model;

/** How much of a Valkey server's TLS certificate is checked. */
public enum TlsVerify {
  /** Signed by a trusted CA and naming the host or IP address connected to. */
  Full,
  /**
   * Signed by a trusted CA, whatever names it lists: for clusters whose nodes announce IP
   * addresses their certificates do not list.
   */
  CA;

  /** The value the agent reads from {@code WARMGATE_VALKEY_TLS_VERIFY}. */
  public String agentValue() {
    return name().toLowerCase(java.util.Locale.ROOT);
  }
}
