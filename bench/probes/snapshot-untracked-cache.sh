#!/bin/bash
# Usage: snapshot-untracked-cache.sh REPO HOME BINDIR
# snapshot vs git status, both with core.untrackedCache=true and the
# user's index holding the untracked cache; 1 warm-up + 3 rounds alternating.
cd "$1"; export HOME=$2 GIT_CONFIG_NOSYSTEM=1 PATH=$3:$PATH
for i in 3 500 9000 12345 20000 33333 47000 61000 77777 99999; do n=$((i % $(git ls-files | head -100000 | wc -l))); f=$(git ls-files | sed -n "$((n+1))p"); echo "uc edit" >> "$f"; done
echo new > new-uc.txt
git config core.untrackedCache true
git status --porcelain > /dev/null
for r in 0 1 2 3; do
  a=$(date +%s%N); git --no-optional-locks status --porcelain >/dev/null; b=$(date +%s%N)
  git nudge snapshot --json >/dev/null; c=$(date +%s%N)
  echo "round $r status $(( (b-a)/1000000 )) ms snapshot $(( (c-b)/1000000 )) ms"
done
git config --unset core.untrackedCache
