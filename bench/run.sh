#!/usr/bin/env bash
# Runs the admission benchmark as reported in docs/admission.md: every limiter, 10 and 10,000
# tenants, throughput and sampled latency (p50/p99), 1 and 4 threads, against the Redis of
# FAIRPIX_REDIS_URL (source .fairpix/stack.env after scripts/stack up). Extra args go to JMH.
set -euo pipefail
cd "$(dirname "$0")"
JAVA="${JAVA_HOME:+$JAVA_HOME/bin/}java"
for t in 1 4; do
  "$JAVA" -cp 'target/classes:target/lib/*' org.openjdk.jmh.Main AdmissionBenchmark \
    -f 1 -wi 2 -w 1s -i 3 -r 2s -bm thrpt,sample -t "$t" -rf json -rff "target/jmh-t$t.json" "$@"
done
