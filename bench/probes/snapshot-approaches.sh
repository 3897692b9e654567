#!/bin/sh
# Times `git nudge snapshot` against `git status --porcelain` and
# `git stash create` on a generated repository of FILES files (default
# 100000) with 10 edited files and 1 new one, ROUNDS rounds (default 5),
# interleaved, and prints the median of each. Also times the two ways of
# building the snapshot tree that docs/DECISIONS.md compares, as
# bare git command sequences:
#   copy+add:  copy the index (mtime kept), git add -A into it, write-tree
#   status+ui: git status --porcelain=v2, copy the index, update-index of
#              only the changed paths, write-tree
# Usage: bench/probes/snapshot-approaches.sh [DIR]   (git-nudge must be on PATH)
set -eu
FILES=${FILES:-100000}
ROUNDS=${ROUNDS:-5}
DIR=${1:-/tmp/nudge-bench-$FILES}
G="git -c core.hooksPath=/dev/null -c core.fsmonitor=false --no-optional-locks"

if [ ! -d "$DIR/.git" ]; then
	mkdir -p "$DIR"
	(
		cd "$DIR"
		git init -q
		i=0
		while [ $i -lt $((FILES / 100)) ]; do
			d=$(printf 'd%02d/s%04d' $((i / 100)) $i)
			mkdir -p "$d"
			j=0
			while [ $j -lt 100 ]; do
				printf 'file %d %d\nline two\nline three\n' $i $j >"$d/f$j.txt"
				j=$((j + 1))
			done
			i=$((i + 1))
		done
		git add -A
		git -c gc.auto=0 -c user.name=bench -c user.email=bench@localhost commit -qm base
		git gc -q
		for k in 0 1 2 3 4 5 6 7 8 9; do
			echo edit >>"$(printf 'd%02d/s%04d/f50.txt' $((k * (FILES / 1000) / 100)) $((k * (FILES / 1000))))"
		done
		echo new >new-file.txt
	)
fi
cd "$DIR"
git status --porcelain >/dev/null # settle the index's stat cache

now() { date +%s.%N; }
t() { # name command...
	name=$1
	shift
	s=$(now)
	"$@" >/dev/null 2>&1
	e=$(now)
	echo "$name $r $(echo "$e - $s" | bc)" >>"$DIR.times"
}
copy_add() {
	ix=.git/bench-index
	cp -p .git/index $ix
	GIT_INDEX_FILE=$ix $G add -A -- . ':(exclude,glob)**/node_modules/**' ':(exclude,glob)**/.env'
	GIT_INDEX_FILE=$ix $G write-tree
	rm -f $ix
}
status_ui() {
	ix=.git/bench-index
	$G status --porcelain=v2 -z --untracked-files=normal --no-renames --ignore-submodules=dirty |
		tr '\0' '\n' | sed -e 's/^1 .* //' -e 's/^? //' | tr '\n' '\0' >.git/bench-paths
	cp -p .git/index $ix
	GIT_INDEX_FILE=$ix $G update-index -z --add --remove --replace --stdin <.git/bench-paths
	GIT_INDEX_FILE=$ix $G write-tree
	rm -f $ix .git/bench-paths
}
rm -f "$DIR.times"
r=0
while [ $r -lt "$ROUNDS" ]; do
	t git-status git status --porcelain
	t git-stash-create git stash create
	t git-nudge-snapshot git nudge snapshot
	t copy+add copy_add
	t status+update-index status_ui
	r=$((r + 1))
done
git for-each-ref --format='delete %(refname)' refs/nudgethis/ | git update-ref --stdin
rm -rf .nudgethis
echo "files=$FILES rounds=$ROUNDS git=$(git --version | cut -d' ' -f3) cpus=$(nproc) load=$(cut -d' ' -f1 /proc/loadavg)"
for name in git-status git-stash-create git-nudge-snapshot copy+add status+update-index; do
	grep "^$name " "$DIR.times" | cut -d' ' -f3 | sort -n | awk -v n="$name" '{a[NR]=$1} END {printf "%-22s median %.3f s  (min %.3f, max %.3f)\n", n, a[int((NR+1)/2)], a[1], a[NR]}'
done
# Ratios within each round (the machine's load drifts between rounds).
ratio() { # name base
	awk -v n="$1" -v b="$2" '$1 == b {s[$2] = $3} $1 == n {x[$2] = $3}
		END {for (r in x) print x[r] / s[r]}' "$DIR.times" | sort -n |
		awk -v n="$1" -v b="$2" '{a[NR] = $1} END {printf "%-22s / %-16s median ratio %.2f\n", n, b, a[int((NR+1)/2)]}'
}
ratio git-nudge-snapshot git-status
ratio git-nudge-snapshot git-stash-create
ratio git-stash-create git-status
ratio copy+add git-status
ratio status+update-index git-status
