#!/bin/sh
# api-ops.sh REPO [ROUNDS]: GET /api/ops against git nudge op log --json in
# REPO (a repository with a long operation log, such as the checkpoint side
# of disk-checkpoints.sh), alternated round by round; prints the first
# request's time (a server just started: nothing of the log read yet),
# then the medians of the other rounds.
# git-nudge must be on PATH. Then, apart from the alternation, ROUNDS
# requests back to back: the CPU time the dashboard's process (with the
# git processes it waited for) spent on them, per request, from /proc
# (10 ms ticks, summed over the burst; an idle server's own work in that
# time is included).
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
# git runs git-nudge as its child: that is the server.
srv=$(pgrep -P $pid | head -1)
[ -n "$srv" ] || srv=$pid
ticks() { awk '{print $14 + $15 + $16 + $17}' /proc/$srv/stat; }
r=0
: > "$out.api"; : > "$out.log"
while [ $r -le "$ROUNDS" ]; do
	a=$(curl -s -o /dev/null -w '%{time_total}' -H "Authorization: Bearer $token" "${url}api/ops")
	s=$(date +%s%N); git -C "$REPO" nudge op log --json > /dev/null; e=$(date +%s%N)
	if [ $r -eq 0 ]; then
		first=$a
	else
		echo "$a" >> "$out.api"
		echo "scale=6; ($e - $s) / 1000000000" | bc >> "$out.log"
	fi
	r=$((r + 1))
done
curl -s -o /dev/null -H "Authorization: Bearer $token" "${url}api/ops"
c0=$(ticks)
s0=$(date +%s%N)
r=0
while [ $r -lt "$ROUNDS" ]; do
	curl -s -o /dev/null -H "Authorization: Bearer $token" "${url}api/ops"
	r=$((r + 1))
done
s1=$(date +%s%N)
c1=$(ticks)
hz=$(getconf CLK_TCK)
median() { sort -n "$1" | awk '{v[NR]=$1} END {printf "%.1f ms", v[int((NR+1)/2)]*1000}'; }
echo "first GET /api/ops $(echo "$first" | awk '{printf "%.1f ms", $1*1000}'); GET /api/ops median $(median "$out.api"); git nudge op log --json median $(median "$out.log")"
echo "$ROUNDS GET /api/ops back to back: $(echo "scale=1; ($s1 - $s0) / 1000000 / $ROUNDS" | bc) ms each (wall), server CPU $(echo "scale=1; ($c1 - $c0) * 1000 / $hz / $ROUNDS" | bc) ms each; load $(cut -d' ' -f1-3 /proc/loadavg)"
rm -f "$out.api" "$out.log"
