#!/bin/sh
# api-ops.sh REPO [ROUNDS]: GET /api/ops against git nudge op log --json in
# REPO (a repository with a long operation log, such as the checkpoint side
# of disk-checkpoints.sh), alternated round by round; prints the medians.
# git-nudge must be on PATH.
set -e
REPO=$1
ROUNDS=${2:-10}
out=$(mktemp)
git -C "$REPO" nudge dashboard --no-open > "$out" 2>&1 &
pid=$!
trap 'kill $pid 2>/dev/null; rm -f "$out"' EXIT
i=0
while ! grep -q 'Dashboard: http' "$out"; do
	i=$((i + 1)); [ $i -gt 300 ] && { cat "$out"; exit 1; }
	sleep 0.1
done
url=$(sed -n 's/^Dashboard: \(http[^?]*\)?token=\(.*\)$/\1/p' "$out" | head -1)
token=$(sed -n 's/^Dashboard: http[^?]*?token=\(.*\)$/\1/p' "$out" | head -1)
echo "operations: $(git -C "$REPO" nudge op log | wc -l)"
r=0
: > "$out.api"; : > "$out.log"
while [ $r -le "$ROUNDS" ]; do
	a=$(curl -s -o /dev/null -w '%{time_total}' -H "Authorization: Bearer $token" "${url}api/ops")
	s=$(date +%s%N); git -C "$REPO" nudge op log --json > /dev/null; e=$(date +%s%N)
	if [ $r -gt 0 ]; then
		echo "$a" >> "$out.api"
		echo "scale=6; ($e - $s) / 1000000000" | bc >> "$out.log"
	fi
	r=$((r + 1))
done
median() { sort -n "$1" | awk '{v[NR]=$1} END {printf "%.1f ms", v[int((NR+1)/2)]*1000}'; }
echo "GET /api/ops median $(median "$out.api"); git nudge op log --json median $(median "$out.log")"
rm -f "$out.api" "$out.log"
