#!/usr/bin/env bash
# The benchmark of BENCHMARKS.md: wrangler against DuckDB on the standard table, in one JVM.
# Usage: ./bench.sh [rows, default 5000000] [repetitions, default 3]
#        ./bench.sh --encode [rows] [repetitions]   (DuckDB's COPYs and wrangler's encode-only writes only)
#        BENCH_HEAP=512m ./bench.sh --stream [rows, default 50000000] [days, default 50]
#        ./bench.sh --loop partitioned|flat [rows] [repetitions]   (one encode-only write, repeated; for a profiler)
#        ./bench.sh --network [sim|local, default sim] [rows, default 5000000] [repetitions, default 3] [first-byte ms, default 30]
#                             [MB/s per connection, default 80] [shapes, default standard,wide,large]
#        ./bench.sh --partitions [sim|local|floor] [stage|deferred] [counts, default 1000,10000,50000] [first-byte ms, sim only, default 0]
#        ./bench.sh --trips [rows, default 200000] [first-byte ms, default 50,250] [repetitions, default 3] [client pool, default 50]
#                           [methods, default stage,deferred] [MB/s per connection, default 80] [concurrency, default 48]   (round trips: the slope)
#        ./bench.sh --read-loop [rows, default 1000000] [repetitions, default 30] [threads, 0: default]   (one read, repeated; for a profiler)
#        ./bench.sh --read [rows, default 5000000] [repetitions, default 3] [compaction rows, default 2000000] [memory-only: no LocalS3 compaction | read-only: no compaction]
#        ./bench.sh --cold [rows, default 2000000] [repetitions, default 5] [cds]   (a fresh JVM's first read against DuckDB's first query, each in a child process)
#        ./bench.sh --speed [rows, default 2000000] [repetitions, default 5] [parts, default warm,cold,lookup; loop: the warm read alone, 4 x repetitions, for a profiler]   (reads against the GET floor
#                           + DuckDB from LocalS3: warm in one JVM, cold in fresh JVMs, the lookup of one user_id)
#        ./bench.sh --lookup-ab <A core classes> <B core classes> [rows, default 2000000] [repetitions, default 9]   (the lookup
#                           of two builds of wrangler-core in one JVM, alternating, each against the floor of its own requests)
#        ./bench.sh --warm-ab <A core classes> <B core classes> [rows, default 2000000] [repetitions, default 9]   (the warm read
#                           of two builds of wrangler-core in one JVM, alternating with the GET floor and DuckDB)
#        ./bench.sh --warm-account [rows, default 2000000] [repetitions, default 8] [untimed rounds, default 15]   (the warm read's
#                           CPU by kind of thread: server, key proxy, compiler, GC, caller, wrangler's threads; against the GET floors')
#        ./bench.sh --speed serve [rows] [copy dir]   (the table served by LocalS3 until killed; prints the cold children's commands)
#        ./bench.sh --merge [rows, default 5000000] [repetitions, default 3]   (a merge by key of 50,000 rows against DuckDB's same merge)
#        ./bench.sh --merge memory [rows, default 40000000] [child heap, default 512m]   (a merge into one partition several times the heap)
#        ./bench.sh --takeover [repetitions, default 3]   (SIGKILL of a writer holding the lease -> a rerun starts staging)
#        ./bench.sh --spark [rows, default 5000000] [repetitions, default 3]   (wrangler-spark against Spark's own writer, local[2])
#        BENCH_HEAP=768m ./bench.sh --spark --memory [rows[:tasks],..., default 50000000:2,100000000:2]   (the driver's memory)
# BENCH_JAVA_OPTS are added to the JVM's options (a JFR recording, another GC).
# Maven options (a local repository of your own: MVN_OPTS="-Dmaven.repo.local=/path") are passed to every mvn call.
set -euo pipefail
cd "$(dirname "$0")"
if [ "${1:-}" = "--spark" ]; then
  # A module of its own (wrangler-spark-bench): Spark's jars and the flags it needs on JDK 17 (the list of Spark's launcher;
  # the StAX factories let S3Mock's Jackson XML work beside Spark's shaded Hadoop, as in wrangler-spark's tests).
  shift
  mvn ${MVN_OPTS:-} -q -B -pl wrangler-spark-bench -am -DskipTests install
  mvn ${MVN_OPTS:-} -q -B -pl wrangler-spark-bench dependency:build-classpath -Dmdep.outputFile=target/bench-classpath.txt -Dmdep.includeScope=runtime
  exec java -Xmx${BENCH_HEAP:-4g} ${BENCH_JAVA_OPTS:-} \
    --add-opens=java.base/java.lang=ALL-UNNAMED --add-opens=java.base/java.lang.invoke=ALL-UNNAMED \
    --add-opens=java.base/java.lang.reflect=ALL-UNNAMED --add-opens=java.base/java.io=ALL-UNNAMED \
    --add-opens=java.base/java.net=ALL-UNNAMED --add-opens=java.base/java.nio=ALL-UNNAMED \
    --add-opens=java.base/java.util=ALL-UNNAMED --add-opens=java.base/java.util.concurrent=ALL-UNNAMED \
    --add-opens=java.base/java.util.concurrent.atomic=ALL-UNNAMED --add-opens=java.base/jdk.internal.ref=ALL-UNNAMED \
    --add-opens=java.base/sun.nio.ch=ALL-UNNAMED --add-opens=java.base/sun.nio.cs=ALL-UNNAMED \
    --add-opens=java.base/sun.security.action=ALL-UNNAMED --add-opens=java.base/sun.util.calendar=ALL-UNNAMED \
    -Djdk.reflect.useDirectMethodHandle=false -Dio.netty.tryReflectionSetAccessible=true \
    -Djavax.xml.stream.XMLInputFactory=com.ctc.wstx.stax.WstxInputFactory \
    -Djavax.xml.stream.XMLOutputFactory=com.ctc.wstx.stax.WstxOutputFactory \
    -cp "wrangler-spark-bench/target/classes:wrangler-bench/target/classes:wrangler-spark/target/classes:wrangler-testkit/target/classes:wrangler-core/target/classes:$(cat wrangler-spark-bench/target/bench-classpath.txt)" \
    io.wrangler.bench.SparkBench "$@"
fi
mvn ${MVN_OPTS:-} -q -B -pl wrangler-bench -am -DskipTests install
mvn ${MVN_OPTS:-} -q -B -pl wrangler-bench dependency:build-classpath -Dmdep.outputFile=target/bench-classpath.txt -Dmdep.includeScope=runtime
main=io.wrangler.bench.Bench
if [ "${1:-}" = "--stream" ]; then
  main=io.wrangler.bench.StreamBench
  shift
elif [ "${1:-}" = "--read" ]; then
  main=io.wrangler.bench.ReadBench
  shift
elif [ "${1:-}" = "--speed" ]; then
  main=io.wrangler.bench.SpeedBench
  shift
elif [ "${1:-}" = "--lookup-ab" ]; then
  main=io.wrangler.bench.LookupAB
  shift
elif [ "${1:-}" = "--warm-ab" ]; then
  main=io.wrangler.bench.WarmAB
  shift
elif [ "${1:-}" = "--warm-account" ]; then
  main=io.wrangler.bench.WarmAccount
  shift
elif [ "${1:-}" = "--cold" ]; then
  main=io.wrangler.bench.ColdBench
  shift
elif [ "${1:-}" = "--network" ]; then
  main=io.wrangler.bench.NetworkBench
  shift
elif [ "${1:-}" = "--trips" ]; then
  main=io.wrangler.bench.TripsBench
  shift
elif [ "${1:-}" = "--partitions" ]; then
  main=io.wrangler.bench.PartitionsBench
  shift
elif [ "${1:-}" = "--merge" ]; then
  main=io.wrangler.bench.MergeBench
  shift
elif [ "${1:-}" = "--takeover" ]; then
  main=io.wrangler.bench.TakeoverBench
  shift
elif [ "${1:-}" = "--encode" ]; then
  :  # Bench itself reads the flag
elif [ "${1:-}" = "--loop" ]; then
  main=io.wrangler.bench.EncodeLoop
  shift
elif [ "${1:-}" = "--read-loop" ]; then
  main=io.wrangler.bench.ReadLoop
  shift
fi
# The modules' own classes first: the shared ~/.m2 may hold another checkout's wrangler jars by the time this runs.
exec java -Xmx${BENCH_HEAP:-4g} ${BENCH_JAVA_OPTS:-} --add-opens=java.base/java.nio=ALL-UNNAMED \
  -cp "wrangler-bench/target/classes:wrangler-testkit/target/classes:wrangler-core/target/classes:$(cat wrangler-bench/target/bench-classpath.txt)" "$main" "$@"
