/** Client authentication: bearer tokens per role, compared in constant time, re-read when their file changes. */
package io.warmgate.gateway.auth;
