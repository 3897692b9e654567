#!/bin/sh
# Usage: runs-without-drop.sh REPO HOME BINDIR [RUNS]
# RUNS (default 300) runs that append a line to 20 files each, no drop;
# prints .nudgethis and .git sizes every 50 runs, then what .git holds
# after `git gc` (pack, loose objects, the suite's index copies, the
# objects each ref namespace alone keeps) and after `git gc --prune=now`.
#
# Beside it, a clone of REPO (REPO.plain) gets the same edits as plain
# commits, one `git commit -qa` per run, so that git's own growth between
# two `git gc --auto` and after `git gc` is measured in the same run.
RUNS=${4:-300}
cd "$1"
export HOME=$2 GIT_CONFIG_NOSYSTEM=1 PATH=$3:$PATH
PLAIN="$1.plain"
rm -rf "$PLAIN"
git clone -q --no-local "$1" "$PLAIN"
git -C "$PLAIN" gc -q
kb() { du -sk "$1" | cut -f1; }
echo "start $(date +%T) git=$(kb .git)K tree=$(du -sk --exclude=.git --exclude=.nudgethis . | cut -f1)K plain git=$(kb "$PLAIN/.git")K"
i=1
while [ $i -le "$RUNS" ]; do
	files=""
	j=0
	while [ $j -lt 20 ]; do
		n=$(((i * 37 + j * 503) % 10000))
		files="$files $(printf 'src/d%03d/e%02d/file%06d.txt' $((n / 1000)) $(((n / 50) % 20)) $n)"
		j=$((j + 1))
	done
	git nudge run -- sh -c "for f in $files; do echo run $i >> \$f; done" > /dev/null 2> /dev/null || echo "run $i failed"
	(cd "$PLAIN" && for f in $files; do echo "run $i" >> "$f"; done && git commit -qa -m "run $i")
	if [ $((i % 50)) = 0 ]; then
		echo "after $i $(date +%T): nudgethis=$(kb .nudgethis)K git=$(kb .git)K loose=$(git count-objects | cut -d' ' -f1); plain git=$(kb "$PLAIN/.git")K loose=$(git -C "$PLAIN" count-objects | cut -d' ' -f1); load $(cut -d' ' -f1 /proc/loadavg)"
	fi
	i=$((i + 1))
done
echo "end $(date +%T) nudgethis=$(kb .nudgethis)K git=$(kb .git)K worktrees=$(ls .nudgethis/worktrees 2> /dev/null | wc -l) pool=$(ls .nudgethis/pool | wc -l) refs=$(git for-each-ref | wc -l) loose=$(git count-objects | cut -d' ' -f1)"
for side in . "$PLAIN"; do
	while [ -f "$side/.git/gc.pid" ] && kill -0 "$(cut -d' ' -f1 "$side/.git/gc.pid")" 2> /dev/null; do sleep 1; done
done
endk=$(kb .git)
pendk=$(kb "$PLAIN/.git")
git gc -q
git -C "$PLAIN" gc -q
echo "after git gc: git=$(kb .git)K (end/after gc: $(echo "scale=2; $endk / $(kb .git)" | bc)x); plain git=$(kb "$PLAIN/.git")K (end/after gc: $(echo "scale=2; $pendk / $(kb "$PLAIN/.git")" | bc)x)"
echo "what .git holds after git gc:"
du -sk .git/objects .git/index .git/nudgethis-statcache .git/worktrees 2> /dev/null | sed 's/^/  /'
echo "  loose objects: $(git count-objects | cut -d' ' -f1); pack: $(git count-objects -v | sed -n 's/^size-pack: //p') KiB"
echo "  refs: $(git for-each-ref --format='%(refname)' | sed 's,/[^/]*$,,' | sort | uniq -c | tr -s ' \n' ' ')"
for ns in refs/nudgethis/results refs/nudgethis/snapshots refs/nudgethis/setup refs/nudgethis/undo refs/nudgethis/guard refs/nudgethis-oplog; do
	set -- $(git for-each-ref --format='%(refname)' "$ns")
	[ $# -gt 0 ] || continue
	echo "  objects only $ns reaches beyond main: $(git rev-list --objects --disk-usage "$@" --not main) bytes in the pack"
done
git gc -q --prune=now
git -C "$PLAIN" gc -q --prune=now
echo "after git gc --prune=now: git=$(kb .git)K plain git=$(kb "$PLAIN/.git")K"
