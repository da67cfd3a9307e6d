/**
 * Arrow to Parquet: the schema mapping, the value writers, the codecs, and the encoder of one file.
 * parquet-java is used without Hadoop at run time (a plain configuration and our own codec factory).
 * Internal: not API; may change in any release: no parquet-java or Hadoop type appears in a public signature of wrangler.
 */
package io.wrangler.encoding;
