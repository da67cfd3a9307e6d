#!/usr/bin/env bash
# Opens JShell with wrangler, wrangler-glue and the testkit on the class path, a LocalS3 and a LocalGlue started
# (see jshell/startup.jsh). Extra arguments go to jshell, e.g. a script: ./jshell.sh jshell/tour.jsh
set -euo pipefail
cd "$(dirname "$0")"
mvn -q -B -pl wrangler-examples -am -DskipTests install
mvn -q -B -pl wrangler-examples dependency:build-classpath -Dmdep.outputFile=target/jshell-classpath.txt -Dmdep.includeScope=runtime
cp="wrangler-examples/target/classes:$(cat wrangler-examples/target/jshell-classpath.txt)"
exec jshell -R--add-opens=java.base/java.nio=ALL-UNNAMED -J--add-opens=java.base/java.nio=ALL-UNNAMED \
  --class-path "$cp" --startup DEFAULT --startup jshell/startup.jsh "$@"
