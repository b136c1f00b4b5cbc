/**
 * The release plan's HTTP endpoint ({@code /plan/<namespace>/<name>}), which {@code kubectl
 * warmgate plan} asks; the plan itself is the gate's ({@link io.warmgate.operator.gate.ReleasePlan}).
 */
package io.warmgate.operator.plan;
