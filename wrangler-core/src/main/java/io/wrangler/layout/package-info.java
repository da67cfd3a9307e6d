/**
 * The table's layout on S3, below both reading and committing: the {@link io.wrangler.layout.Manifest} each write keeps
 * under {@code _tmp/<writeId>/}, the {@link io.wrangler.layout.ManifestTrust} check every reader of a manifest applies,
 * the {@link io.wrangler.layout.WriteIds} that files and folders carry, and the {@link io.wrangler.layout.Visibility}
 * a reader derives from the manifests in flight. The commit ({@code io.wrangler.commit}) changes these; readers
 * ({@code io.wrangler.read}) and compaction only read them. Names no package above it (commit, read, compact). Not public
 * API. The protocol these serve is written down once, in {@code io/wrangler/commit/package-info.java}.
 */
package io.wrangler.layout;
