#!/usr/bin/env bash
# The benchmark of BENCHMARKS.md: wrangler against DuckDB on the standard table, in one JVM.
# Usage: ./bench.sh [rows, default 5000000] [repetitions, default 3]
set -euo pipefail
cd "$(dirname "$0")"
mvn -q -B -pl wrangler-bench -am -DskipTests install
mvn -q -B -pl wrangler-bench dependency:build-classpath -Dmdep.outputFile=target/bench-classpath.txt -Dmdep.includeScope=runtime
exec java -Xmx${BENCH_HEAP:-4g} --add-opens=java.base/java.nio=ALL-UNNAMED \
  -cp "wrangler-bench/target/classes:$(cat wrangler-bench/target/bench-classpath.txt)" io.wrangler.bench.Bench "$@"
