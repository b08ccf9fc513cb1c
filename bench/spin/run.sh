#!/usr/bin/env bash
# Racetrack against SPIN on the same models at the same granularity (one
# lock or unlock per atomic step; see philosophers.pml and vitess.pml),
# whole process against whole process on this machine: SPIN's time is
# `spin -a` + `gcc pan.c` + `./pan`; Racetrack's is `go run
# ./bench/cmd/rtcheck` (the Go build cache is warmed once first, so it
# counts linking and the search). Peak RSS is GNU time's maximum resident
# set (for go run: the largest of go and the checker it runs). bfs and
# dfs run on every core (-workers 1: one; a dfs with partial-order
# reduction runs on one).
#
# It installs nothing. Prerequisites: Go, and
#   apt-get install -y spin gcc
# Run from the repository root:  bench/spin/run.sh
# ITER3=1 adds vitess fixed C=3 ITER=3 (SPIN needs about 6 GB and 100 s).
# FULL=1 also runs that and SPIN without partial-order reduction
# (-DNOREDUCE) on the two deadlock-free configurations, and Racetrack
# without reductions on the philosophers, which take many minutes.
set -euo pipefail
cd "$(dirname "$0")/../.."
root=$(pwd)
for tool in spin gcc go; do
	command -v "$tool" >/dev/null || { echo "run.sh: $tool not found (apt-get install -y spin gcc)" >&2; exit 1; }
done
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
go build -o "$work/warm" ./bench/cmd/rtcheck

now() { date +%s.%N; }
secs() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", b - a }'; }

# rss FILE: the peak resident set of the command /usr/bin/time measured, in MB.
rss() { awk '{ printf "%.0f MB", $1 / 1024 }' "$1"; }

# spin_row LABEL PML "DEFINES" "CCFLAGS"
spin_row() {
	local label=$1 pml=$2 defs=$3 cc=$4 t0 t1 out states verdict len
	t0=$(now)
	(cd "$work" && spin $defs -a "$root/bench/spin/$pml" >/dev/null && gcc $cc -O2 -w -o pan pan.c)
	out=$(cd "$work" && /usr/bin/time -f %M -o "$work/rss" ./pan -m1000000 2>&1 || true)
	t1=$(now)
	states=$(echo "$out" | awk '/states, stored/ { print $1; exit }')
	if echo "$out" | grep -q "errors: 0"; then
		verdict="no deadlock (verified)"; len="-"
	else
		verdict="deadlock found"
		len=$(echo "$out" | sed -n 's/.*(at depth \([0-9]*\)).*/\1/p' | head -1)
		[ -n "$len" ] || len=$(echo "$out" | sed -n 's/.*depth reached \([0-9]*\).*/\1/p' | head -1)
	fi
	printf "| %s | SPIN %s | %s | %s s | %s | %s | %s |\n" "$label" "$cc" "$states" "$(secs "$t0" "$t1")" "$(rss "$work/rss")" "$verdict" "$len"
}

# rt_row LABEL ARGS...
rt_row() {
	local label=$1 t0 t1 out states verdict len red
	shift
	t0=$(now)
	out=$(/usr/bin/time -f %M -o "$work/rss" go run ./bench/cmd/rtcheck "$@")
	t1=$(now)
	states=$(echo "$out" | sed -n 's/.*; states \([0-9]*\),.*/\1/p')
	verdict=$(echo "$out" | sed -n 's/^racetrack [a-z]* {[^}]*}: \([^;]*\);.*/\1/p')
	len=$(echo "$out" | sed -n 's/.*counterexample \([-0-9]*\) steps.*/\1/p')
	red=$(echo "$out" | sed -n 's/^racetrack \([a-z]*\) {\([^}]*\)}.*workers \([0-9]*\)$/\1 \2, \3 workers/p' | sed 's/DPOR:false//; s/:true//g; s/ [A-Za-z]*:false//g')
	printf "| %s | Racetrack %s | %s | %s s | %s | %s | %s |\n" "$label" "$red" "$states" "$(secs "$t0" "$t1")" "$(rss "$work/rss")" "$verdict" "$len"
}

echo "| configuration | tool | states | time | peak RSS | verdict | counterexample (steps) |"
echo "|---|---|---|---|---|---|---|"
l="vitess lock-level buggy C=3 ITER=3"
spin_row "$l" vitess.pml "-DC=3 -DITER=3 -DFIXED=0" "-DSAFETY -DBFS"
spin_row "$l" vitess.pml "-DC=3 -DITER=3 -DFIXED=0" "-DSAFETY -DBFS -DNOREDUCE"
rt_row "$l" -scenario vitess-messager -preset lock-level -variant buggy -param clients=3 -param iterations=3 -strategy bfs -no-shrink
l="vitess lock-level fixed C=3 ITER=2"
spin_row "$l" vitess.pml "-DC=3 -DITER=2 -DFIXED=1" "-DSAFETY"
if [ "${FULL:-0}" = 1 ]; then
	spin_row "$l" vitess.pml "-DC=3 -DITER=2 -DFIXED=1" "-DSAFETY -DNOREDUCE"
fi
rt_row "$l" -scenario vitess-messager -preset lock-level -variant fixed -param clients=3 -param iterations=2 -strategy bfs
rt_row "$l" -scenario vitess-messager -preset lock-level -variant fixed -param clients=3 -param iterations=2 -strategy bfs -workers 1
rt_row "$l" -scenario vitess-messager -preset lock-level -variant fixed -param clients=3 -param iterations=2 -strategy dfs
rt_row "$l" -scenario vitess-messager -preset lock-level -variant fixed -param clients=3 -param iterations=2 -strategy dfs -workers 1
# SPIN's question only (no deadlock; Racetrack's default also checks the
# model's Always property, which switches partial-order reduction off).
rt_row "$l, no-deadlock only" -scenario vitess-messager -preset lock-level -variant fixed -param clients=3 -param iterations=2 -strategy bfs -reductions sleep,por,symmetry -property no-deadlock
if [ "${FULL:-0}" = 1 ] || [ "${ITER3:-0}" = 1 ]; then
	l="vitess lock-level fixed C=3 ITER=3"
	spin_row "$l" vitess.pml "-DC=3 -DITER=3 -DFIXED=1" "-DSAFETY"
	rt_row "$l" -scenario vitess-messager -preset lock-level -variant fixed -param clients=3 -param iterations=3 -strategy bfs -states 100000000
	rt_row "$l" -scenario vitess-messager -preset lock-level -variant fixed -param clients=3 -param iterations=3 -strategy dfs -states 100000000
	rt_row "$l, no-deadlock only" -scenario vitess-messager -preset lock-level -variant fixed -param clients=3 -param iterations=3 -strategy bfs -reductions sleep,por,symmetry -property no-deadlock -states 100000000
fi
l="dining philosophers N=8 fixed"
spin_row "$l" philosophers.pml "-DN=8 -DFIXED=1" "-DSAFETY"
if [ "${FULL:-0}" = 1 ]; then
	spin_row "$l" philosophers.pml "-DN=8 -DFIXED=1" "-DSAFETY -DNOREDUCE"
fi
rt_row "$l" -scenario dining-philosophers -preset lock-level -variant fixed -param philosophers=8 -strategy dfs
if [ "${FULL:-0}" = 1 ]; then
	rt_row "$l" -scenario dining-philosophers -preset lock-level -variant fixed -param philosophers=8 -strategy dfs -reductions none
fi
