#!/usr/bin/env bash
# bench-sim.sh: how closely does the simulator keep its fixed-mode schedule
# with many concurrent streams? Runs scripts/bench-sim (simulator and a raw
# loopback client in one process) and prints write lateness percentiles.
# The machine's load average is printed before and after: other processes
# on the same cores delay the writes and the figures mean little when the
# load average exceeds the core count.
#
#   scripts/bench-sim.sh                      # 1000 streams, TTFT 50ms, ITL 10ms
#   scripts/bench-sim.sh -streams 500 -itl 20ms
set -euo pipefail
cd "$(dirname "$0")/.."
bin="$(mktemp -d)/bench-sim"
trap 'rm -rf "$(dirname "$bin")"' EXIT
go build -o "$bin" ./scripts/bench-sim
echo "cores: $(nproc); load before: $(cut -d' ' -f1-3 /proc/loadavg)"
"$bin" "$@"
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
