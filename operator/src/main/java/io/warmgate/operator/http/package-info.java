/** Helpers of the JDK HTTP server shared by the probe and metrics endpoints and the webhook. */
package io.warmgate.operator.http;
