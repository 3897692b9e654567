#!/bin/sh
# Usage: runs-without-drop.sh REPO HOME BINDIR: 300 runs that append a line to 20 files each, no drop;
# prints .nudgethis and .git sizes every 50 runs and .git after git gc --prune=now.
cd "$1"
export HOME=$2 GIT_CONFIG_NOSYSTEM=1 PATH=$3:$PATH
echo "start $(date +%T) git=$(du -sk .git | cut -f1)K tree=$(du -sk --exclude=.git . | cut -f1)K"
i=1
while [ $i -le 300 ]; do
  files=""
  j=0
  while [ $j -lt 20 ]; do
    n=$(( (i*37 + j*503) % 10000 ))
    files="$files $(printf 'src/d%03d/e%02d/file%06d.txt' $((n/1000)) $(((n/50)%20)) $n)"
    j=$((j+1))
  done
  git nudge run -- sh -c "for f in $files; do echo run $i >> \$f; done" >/dev/null 2>/dev/null || echo "run $i failed"
  if [ $((i % 50)) = 0 ]; then echo "after $i $(date +%T): nudgethis=$(du -sk .nudgethis | cut -f1)K git=$(du -sk .git | cut -f1)K"; fi
  i=$((i+1))
done
echo "end $(date +%T) nudgethis=$(du -sk .nudgethis | cut -f1)K git=$(du -sk .git | cut -f1)K worktrees=$(ls .nudgethis/worktrees 2>/dev/null | wc -l) pool=$(ls .nudgethis/pool | wc -l) refs=$(git for-each-ref | wc -l) loose=$(git count-objects | cut -d' ' -f1)"
git gc -q --prune=now
echo "after gc: git=$(du -sk .git | cut -f1)K"
