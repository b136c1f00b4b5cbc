/**
 * The Deployment and StatefulSet readiness style: the {@code warmgate.io/warm} pod condition that
 * pods of a Deployment- or StatefulSet-targeting policy wait on (the webhook adds the readiness
 * gate, see {@code io.warmgate.operator.inject.PodInjector}), set from the same verdict as every
 * other gate ({@code io.warmgate.operator.gate.NewPodsGate}). Pods are listed when a policy is
 * reconciled, never watched.
 */
package io.warmgate.operator.readiness;
