#!/bin/sh
# Times `git autodev checkpoint` against `git add -A && git commit -q` on the
# same generated tree (one edited file and one new file per round), and
# `git autodev restore` (the list) with a journal of 10,000 checkpoints.
# Usage: bench/autodev.sh [FILES] [ROUNDS]   (git-autodev on PATH)
set -eu
files=${1:-10000}
rounds=${2:-15}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export GIT_CONFIG_NOSYSTEM=1 HOME="$tmp/home" GIT_AUTHOR_NAME=b GIT_AUTHOR_EMAIL=b@b GIT_COMMITTER_NAME=b GIT_COMMITTER_EMAIL=b@b
mkdir -p "$HOME"

gen() {
	git init -q -b main "$1"
	(cd "$1" && i=0 && while [ $i -lt $(((files + 99) / 100)) ]; do mkdir d$i; i=$((i + 1)); done &&
		awk -v n="$files" 'BEGIN { for (i = 0; i < n; i++) { f = "d" int(i / 100) "/f" i ".txt"; print "file " i > f; close(f) } }' &&
		git add -A && git commit -q -m init)
}

now() { date +%s%N; }

median() { sort -n | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'; }

gen "$tmp/a"
gen "$tmp/b"
: > "$tmp/ta"
: > "$tmp/tb"
i=0
while [ $i -lt "$rounds" ]; do
	i=$((i + 1))
	for side in a b; do
		cd "$tmp/$side"
		echo "round $i" >> d0/f0.txt
		echo "new $i" > "new$i.txt"
		t0=$(now)
		if [ $side = a ]; then
			git add -A && git commit -q -m "round $i"
		else
			git autodev checkpoint -m "round $i" > /dev/null
		fi
		t1=$(now)
		echo $(((t1 - t0) / 1000)) >> "$tmp/t$side"
	done
done
ma=$(median < "$tmp/ta")
mb=$(median < "$tmp/tb")
echo "files=$files rounds=$rounds"
echo "git add -A && git commit -q : median ${ma} us"
echo "git autodev checkpoint      : median ${mb} us"
awk -v a="$ma" -v b="$mb" 'BEGIN { printf "ratio checkpoint / commit   : %.2f\n", b / a }'

# The list with 10,000 entries.
cd "$tmp/b"
head=$(git rev-parse HEAD)
awk -v h="$head" 'BEGIN { print "["; for (i = 1; i <= 10000; i++) { printf "  {\"id\": \"c%d\", \"commit\": \"%s\", \"label\": \"thread — step %d\", \"type\": \"task\", \"time\": \"2026-01-01T00:00:00Z\", \"task\": null, \"mode\": null}%s\n", i, h, i, (i < 10000 ? "," : "") } print "]" }' > .autodev/checkpoints.json
: > "$tmp/tl"
i=0
while [ $i -lt "$rounds" ]; do
	i=$((i + 1))
	t0=$(now)
	git autodev restore > /dev/null
	t1=$(now)
	echo $(((t1 - t0) / 1000)) >> "$tmp/tl"
done
echo "git autodev restore (list of 10,000): median $(median < "$tmp/tl") us"
