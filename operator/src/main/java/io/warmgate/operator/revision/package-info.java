/**
 * Which pods of a workload are new: the pod-template hash of the pods a rollout brings in and of
 * the pods they replace, whatever rolls them (an Argo Rollout, a Deployment, a StatefulSet,
 * Flagger's {@code <name>-primary} pair). The gate measures the new pods' key space against the
 * warm criterion; this package only tells them apart. It reads the API server and imports nothing of
 * the gate.
 */
package io.warmgate.operator.revision;
