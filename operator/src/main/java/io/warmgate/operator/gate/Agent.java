package io.warmgate.operator.gate;

/**
 * One agent's registry entry in {@code T:agents}.
 *
 * @param pod the pod name (the hash field)
 * @param namespace the pod's namespace, or null when the entry has none (agents before the
 *     field existed)
 * @param podTemplateHash the pod's {@code rollouts-pod-template-hash}
 * @param schemaHash the schema hash its cache reads and writes
 * @param expiresAt epoch millis after which the entry is dead
 */
public record Agent(String pod, String namespace, String podTemplateHash, String schemaHash,
    long expiresAt) {}
