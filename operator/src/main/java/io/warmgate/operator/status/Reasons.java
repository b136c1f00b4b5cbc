package io.warmgate.operator.status;

/** The CamelCase reasons the operator writes into conditions and events. */
public final class Reasons {

  /** Ready=True: the spec is valid and the target, Secret and Valkey were all found. */
  public static final String RECONCILED = "Reconciled";
  /** L2Reachable=True: the server answered PING, or every node of the cluster did. */
  public static final String CONNECTED = "Connected";
  /**
   * L2Reachable=True: the cluster serves every slot, but some node does not answer or is flagged
   * failing (the message names it).
   */
  public static final String CLUSTER_DEGRADED = "ClusterDegraded";

  /** The spec passed the CRD schema but is still unusable, such as an unparsable duration. */
  public static final String INVALID_SPEC = "InvalidSpec";
  /** spec.targetRef names a workload that does not exist. */
  public static final String TARGET_NOT_FOUND = "TargetNotFound";
  /** spec.valkey.passwordSecretKeyRef names a Secret that does not exist. */
  public static final String SECRET_NOT_FOUND = "SecretNotFound";
  /** The operator may not read the named Secret: it has no get on Secrets in that namespace. */
  public static final String SECRET_FORBIDDEN = "SecretForbidden";
  /** The Secret exists but lacks the referenced key. */
  public static final String SECRET_KEY_NOT_FOUND = "SecretKeyNotFound";
  /** A Valkey address matches no pattern of the operator's allowlist; it was not contacted. */
  public static final String ADDRESS_NOT_ALLOWED = "AddressNotAllowed";
  /** Nothing listens at a Valkey address. */
  public static final String CONNECTION_REFUSED = "ConnectionRefused";
  /** A Valkey host name does not resolve. */
  public static final String UNKNOWN_HOST = "UnknownHost";
  /** Valkey refused the credentials, or requires some and none were given. */
  public static final String AUTH_FAILED = "AuthFailed";
  /** The TLS handshake with Valkey failed: an untrusted CA, a name the certificate lacks. */
  public static final String TLS_FAILED = "TlsFailed";
  /** One side speaks TLS and the other does not (spec.valkey.tls is wrong for the server). */
  public static final String TLS_MISMATCH = "TlsMismatch";
  /** Something answers at the address, but not as Valkey or Redis (a web server, say). */
  public static final String NOT_VALKEY = "NotValkey";
  /** spec.valkey.mode says Cluster for a standalone server, or Standalone for a cluster node. */
  public static final String MODE_MISMATCH = "ModeMismatch";
  /** The cluster reports cluster_state:fail (slots without a primary), or no node answers. */
  public static final String CLUSTER_DOWN = "ClusterDown";
  /** Valkey did not answer within the probe timeout. */
  public static final String TIMEOUT = "Timeout";
  /** Valkey failed in a way none of the other reasons describe; the message has the detail. */
  public static final String CONNECTION_FAILED = "ConnectionFailed";
  /**
   * L2Reachable=Unknown: Valkey was not probed because an earlier check failed;
   * ChangesFollowed=Unknown: the reader's progress could not be read from Valkey.
   */
  public static final String NOT_CHECKED = "NotChecked";
  /** The reconciler itself failed; the message has the error. */
  public static final String RECONCILE_FAILED = "ReconcileFailed";
  /** Ready=False: the target Rollout has no step the gate can hold at. */
  public static final String NO_GATE_STEP = "NoGateStep";
  /** Ready=False: the warm-up rules can never be met (see the message for the field and fix). */
  public static final String CANNOT_WARM = "CannotWarm";
  /** Ready=False: spec.valkey gives a password, but the server answers without one. */
  public static final String PASSWORD_NOT_REQUIRED = "PasswordNotRequired";
  /** Ready=False: an older CachePolicy uses the same cacheName on the same Valkey. */
  public static final String CACHE_NAME_IN_USE = "CacheNameInUse";
  /** Conflict=True: an older CachePolicy gates the same Rollout. */
  public static final String GATED_BY_ANOTHER_POLICY = "GatedByAnotherPolicy";
  /** Conflict=False: no other CachePolicy targets the Rollout. */
  public static final String SOLE_POLICY = "SolePolicy";

  /** ChangesFollowed=True: a reader saved its progress recently and its lag is within bounds. */
  public static final String FOLLOWING = "Following";
  /** ChangesFollowed=False: no reader saved its progress, or none did recently. */
  public static final String NO_READER = "NoReader";
  /** ChangesFollowed=False: a reader runs, but its watermark trails by more than the bound. */
  public static final String LAGGING = "Lagging";
  /**
   * ChangesFollowed=False: a reader found its saved watermark gone and started from then; rows
   * changed before may be served until the values cached before have expired.
   */
  public static final String WATERMARK_LOST = "WatermarkLost";

  private Reasons() {}
}
