/** Benchmarks of wrangler against its peers. A stub until the performance issue lands. */
package io.wrangler.bench;
