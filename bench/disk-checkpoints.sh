#!/bin/sh
# disk-checkpoints.sh [N] [FILES] [WORK]: what N checkpoints with small
# edits cost on disk, against N plain commits of the same edits.
#
# Two copies of a generated FILES-file repository get the same edits, N
# times (two files changed each time): one records each as
# `git autodev checkpoint`, the other as `git add -A && git commit`. git's
# own defaults apply (gc.auto 6700, gc.autoDetach): git commit runs
# `git gc --auto` itself; on the checkpoint side `git gc --auto` is run
# every 100 checkpoints, as the user's own git commands would. Every 1,000
# steps, and at the end, it prints the size of each .git, its loose
# objects, and whether git gc --auto refused (.git/gc.log).
#
# OPKEEP (default: op.keep's own default, 1,000) sets op.keep on the
# checkpoint side: the same share of dropped records as 10,000 checkpoints
# with op.keep 1,000 comes from N checkpoints with OPKEEP N/10, in a tenth
# of the time, and GCAUTO (gc.auto on both sides, default 6,700) N/10
# scales git's thresholds the same way. EVERY (1,000): steps between
# reports. BIN, when set, is a folder with git-nudge and git-autodev
# to use instead of building them from this tree (to compare versions).
#
#   sh bench/disk-checkpoints.sh              # 10,000 checkpoints, 1,000 files
#   sh bench/disk-checkpoints.sh 300 1000     # a quick look
#   OPKEEP=50 GCAUTO=670 EVERY=100 sh bench/disk-checkpoints.sh 500 1000
set -e
N=${1:-10000}
FILES=${2:-1000}
WORK=${3:-$(mktemp -d)}
SRC=$(cd "$(dirname "$0")/.." && pwd)
. "$SRC/bench/disk-checkpoints-repos.sh"

edit() { # edit DIR STEP
	for k in 7 13; do
		f=$(( ($2 * k) % FILES ))
		echo "step $2" >> "$1/src/d$((f % 40))/f$f.txt"
	done
}
report() {
	for side in plain ckpt; do
		g="$WORK/$side/.git"
		kb=$(du -sk "$g" | cut -f1)
		loose=$(git -C "$WORK/$side" count-objects -v | sed -n 's/^count: //p')
		packs=$(git -C "$WORK/$side" count-objects -v | sed -n 's/^packs: //p')
		refused=no
		[ -f "$g/gc.log" ] && refused="yes: $(head -c 200 "$g/gc.log" | tr '\n' ' ')"
		echo "step $1 $side: .git ${kb} KiB, loose objects $loose, packs $packs, gc.log refusal: $refused"
	done
}
s=1
t0=$(date +%s)
while [ $s -le "$N" ]; do
	edit "$WORK/plain" $s
	(cd "$WORK/plain" && git add -A && git commit -q -m "step $s")
	edit "$WORK/ckpt" $s
	(cd "$WORK/ckpt" && git autodev checkpoint -m "step $s" >/dev/null)
	if [ $((s % 100)) -eq 0 ]; then
		git -C "$WORK/ckpt" gc --auto --quiet
	fi
	if [ $((s % ${EVERY:-1000})) -eq 0 ]; then
		echo "# $(($(date +%s) - t0)) s"
		report $s
	fi
	s=$((s + 1))
done
# Let a detached gc finish, then ask git gc --auto once more on each side.
for side in plain ckpt; do
	while [ -f "$WORK/$side/.git/gc.pid" ] && kill -0 "$(cut -d' ' -f1 "$WORK/$side/.git/gc.pid")" 2>/dev/null; do sleep 1; done
	git -C "$WORK/$side" -c gc.autoDetach=false gc --auto --quiet 2>&1 | sed "s/^/$side: /"
done
report final
p=$(du -sk "$WORK/plain/.git" | cut -f1)
c=$(du -sk "$WORK/ckpt/.git" | cut -f1)
echo "ratio ckpt/plain: $(echo "scale=2; $c / $p" | bc)"
echo "op log: $(git -C "$WORK/ckpt" autodev op log | wc -l) operations; segments: $(git -C "$WORK/ckpt" for-each-ref refs/nudgethis-oplog/segments/ | wc -l)"
for side in ckpt plain; do
	echo "unreachable in $side, by type: $(git -C "$WORK/$side" fsck --unreachable --no-reflogs 2>/dev/null | awk '{print $2}' | sort | uniq -c | tr -s ' \n' ' ')"
done
echo "kept packs (op log segments): $(ls "$WORK/ckpt/.git/objects/pack/" | grep -c '\.keep$')"
git -C "$WORK/ckpt" fsck --strict >/dev/null 2>&1 && echo "git fsck: clean" || echo "git fsck: NOT clean"
echo "work folder: $WORK"
