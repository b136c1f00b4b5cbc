package io.warmgate.contract.valkey;

/**
 * An agent's entry in the registry {@link ControlKeys#agents()}: a hash field named by
 * {@link #field} whose value is a JSON object with the properties below, written by the agent and
 * read by the operator. Times are epoch millis; readers ignore properties they do not know, so
 * newer agents can add some.
 */
public final class AgentEntry {

  /** The pod name. */
  public static final String POD = "pod";
  /** The pod's namespace; absent or null when the agent does not know it. */
  public static final String NAMESPACE = "namespace";
  /** The pod's {@code rollouts-pod-template-hash}, which ties the entry to a ReplicaSet. */
  public static final String POD_TEMPLATE_HASH = "podTemplateHash";
  /** The schema hash the agent reads and writes. */
  public static final String SCHEMA_HASH = "schemaHash";
  /** The agent library's version. */
  public static final String VERSION = "version";
  /** When the agent started. */
  public static final String STARTED_AT = "startedAt";
  /** When the entry is dead unless renewed. */
  public static final String EXPIRES_AT = "expiresAt";

  private AgentEntry() {}

  /**
   * The hash field of a pod's entry, {@code <namespace>/<pod>} ({@code <pod>} when the namespace
   * is null or empty): pods of one name in two namespaces that share a Valkey and a cache name keep
   * apart entries. A pod name never contains '/'.
   */
  public static String field(String namespace, String pod) {
    return namespace == null || namespace.isEmpty() ? pod : namespace + "/" + pod;
  }

  /** The pod name of hash field {@code field}, the inverse of {@link #field}. */
  public static String podOf(String field) {
    return field.substring(field.indexOf('/') + 1);
  }
}
