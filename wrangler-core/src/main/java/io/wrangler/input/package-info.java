/**
 * Inputs of a write as a sequence of Arrow batches: a borrowed VectorSchemaRoot, an ArrowReader read
 * once, or Java records converted to Arrow chunk by chunk. Dictionary-encoded columns are decoded here.
 * Internal: not API; may change in any release.
 */
package io.wrangler.input;
