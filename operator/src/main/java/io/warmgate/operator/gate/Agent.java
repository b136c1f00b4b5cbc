package io.warmgate.operator.gate;

/**
 * One agent's registry entry in {@code T:agents}.
 *
 * @param pod the pod name (the hash field)
 * @param podTemplateHash the pod's {@code rollouts-pod-template-hash}
 * @param schemaHash the schema hash its cache reads and writes
 * @param expiresAt epoch millis after which the entry is dead
 */
public record Agent(String pod, String podTemplateHash, String schemaHash, long expiresAt) {}
