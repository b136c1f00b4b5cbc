/** JSON Schema validation of completed responses before they are fanned out. */
package io.warmgate.gateway.validate;
