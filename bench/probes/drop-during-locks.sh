#!/bin/bash
# Usage: droplock.sh REPO BINDIR HOME
# A finished task's worktree (taken from the pool, kept) is dropped with
# the pool off, so drop deletes it; a snapshot and a checkpoint start
# one second later and must finish without waiting for the deletion.
cd "$1"
export HOME=$3 GIT_CONFIG_NOSYSTEM=1 PATH=$2:$PATH
n=$(git ls-files | wc -l)
git nudge run --keep-worktree -- true > /tmp/s31dl.out 2>&1 || { cat /tmp/s31dl.out; exit 1; }
id=$(sed -n 's/^git nudge: \(t[0-9]*\) .*/\1/p' /tmp/s31dl.out | head -1)
echo "task $id worktree files: $(find .nudgethis/worktrees/$id -type f | wc -l) (repository: $n tracked)"
git config nudge.pool 0
t0=$(date +%s.%N)
( git nudge drop $id > /tmp/s31dl.drop 2>&1; echo "drop rc=$? done at +$(echo "$(date +%s.%N) - $t0" | bc) s" >> /tmp/s31dl.drop ) &
dp=$!
sleep 1
s0=$(date +%s.%N); git nudge snapshot > /tmp/s31dl.snap 2>&1; src=$?; s1=$(date +%s.%N)
c0=$(date +%s.%N); git autodev checkpoint > /tmp/s31dl.ckpt 2>&1; crc=$?; c1=$(date +%s.%N)
echo "snapshot rc=$src started +$(echo "$s0 - $t0" | bc) s, took $(echo "$s1 - $s0" | bc) s"
echo "checkpoint rc=$crc started +$(echo "$c0 - $t0" | bc) s, took $(echo "$c1 - $c0" | bc) s"
kill -0 $dp 2>/dev/null && echo "drop still running when both finished (+$(echo "$c1 - $t0" | bc) s)"
echo "trash while drop runs: $(ls .nudgethis/trash 2>/dev/null | wc -l) entries"
wait $dp
cat /tmp/s31dl.drop | tail -3; tail -n 2 /tmp/s31dl.snap /tmp/s31dl.ckpt
echo "trash after: $(ls .nudgethis/trash 2>/dev/null | wc -l) entries"
git config --unset nudge.pool
