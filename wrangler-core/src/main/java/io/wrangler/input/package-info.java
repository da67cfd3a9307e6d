/**
 * Inputs of a write as a sequence of Arrow batches: a borrowed VectorSchemaRoot, an ArrowReader read
 * once, or Java records converted to Arrow chunk by chunk. Dictionary-encoded columns are decoded here.
 * Not public API.
 */
package io.wrangler.input;
