#!/usr/bin/env bash
# Opens JShell with wrangler, wrangler-glue and the testkit on the class path, a LocalS3 and a LocalGlue started
# (see jshell/startup.jsh). Extra arguments go to jshell, e.g. a script: ./jshell.sh jshell/tour.jsh
# The modules are built (into their target/ folders, nothing installed) only when a source or pom is newer than the
# class path this script saved the last time.
set -euo pipefail
cd "$(dirname "$0")"
cpfile=wrangler-examples/target/jshell-classpath.txt
if [ ! -f "$cpfile" ] || [ -n "$(find pom.xml wrangler-core wrangler-glue wrangler-testkit wrangler-examples \
    \( -name target -prune \) -o \( -newer "$cpfile" \( -name '*.java' -o -name pom.xml -o -path '*/resources/*' \) -print \) | head -1)" ]; then
  echo "jshell.sh: building wrangler (sources changed since the last build)" >&2
  # classes and jars only: no javadoc or sources jars (publish.skip), which JShell does not read
  mvn -q -B -pl wrangler-examples -am -DskipTests -Dpublish.skip=true package dependency:build-classpath \
    -Dmdep.outputFile=target/jshell-classpath.txt -Dmdep.includeScope=runtime
fi
# The modules' own classes, not the jars of ~/.m2: the class path file names those of the reactor's target folders.
cp="wrangler-examples/target/classes:$(cat "$cpfile")"
# Both JVMs (JShell's own, which compiles the snippets, and the one that runs them) C1 only with the serial collector:
# they live minutes at most, and C2's compilations cost more CPU than they give back (docs/architecture.md, "CI's time").
exec jshell -R--add-opens=java.base/java.nio=ALL-UNNAMED -J--add-opens=java.base/java.nio=ALL-UNNAMED \
  -J-XX:TieredStopAtLevel=1 -J-XX:+UseSerialGC -R-XX:TieredStopAtLevel=1 -R-XX:+UseSerialGC \
  --class-path "$cp" --startup DEFAULT --startup jshell/startup.jsh "$@"
