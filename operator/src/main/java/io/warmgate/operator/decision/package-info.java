/**
 * The gate's decision served over HTTP for gates the operator does not drive itself:
 * {@code GET /gate/<namespace>/<policy>} (JSON for an Argo Rollouts analysis' {@code web}
 * provider) and {@code POST /flagger/confirm-promotion} (Flagger's webhook: 200 when warm, 403
 * while warming). Both answer from {@link io.warmgate.operator.gate.NewPodsGate}, read-only.
 */
package io.warmgate.operator.decision;
