#!/bin/sh
# disk-checkpoints-fast.sh [N] [FILES] [WORK]: the same measurement as
# disk-checkpoints.sh (N checkpoints with small edits against N plain
# commits of the same edits, in a generated FILES-file repository), made
# to reach 10,000 steps on a shared machine:
#
#   - the two sides run as two loops at once, each in its own clone (the
#     edits are a function of the step number, so both get the same ones);
#   - the plain side commits with one `git commit -qa` (the edits only
#     change tracked files, so it writes what `git add -A && git commit`
#     writes) and lets that commit run `git gc --auto` as git does;
#   - no per-step checks: the checkpoint side's `git gc --auto` runs every
#     100 checkpoints (as the user's own git commands would), and sizes,
#     loose objects and gc.log are read only every EVERY steps.
#
# Each side appends a line to WORK/progress.SIDE every EVERY (default 500)
# steps: the step, the seconds since the start, the mean milliseconds a
# step took since the last line (so a step's cost growing with history
# shows), .git's size in KiB, its loose objects, and whether gc.log holds a
# refusal. At the end both sides run `git gc --auto` once more and
# WORK/result holds the ratio and the unreachable objects by type.
# Timing is for watching progress only; nothing here asserts a time.
#
# OPKEEP and GCAUTO set op.keep and gc.auto as in disk-checkpoints.sh;
# BIN is a folder with git-nudge and git-autodev to use instead of
# building them.
#
#   nohup nice sh bench/disk-checkpoints-fast.sh 10000 1000 /tmp/dc &
#   tail -f /tmp/dc/progress.ckpt /tmp/dc/progress.plain
set -e
N=${1:-10000}
FILES=${2:-1000}
WORK=${3:-$(mktemp -d)}
EVERY=${EVERY:-500}
SRC=$(cd "$(dirname "$0")/.." && pwd)
rm -rf "$WORK"/progress.* "$WORK/result"
. "$SRC/bench/disk-checkpoints-repos.sh"

now_ms() { echo $(($(date +%s%N) / 1000000)); }
sizes() { # sizes SIDE: KiB of .git, loose objects, refusal
	g="$WORK/$1/.git"
	kb=$(du -sk "$g" | cut -f1)
	loose=$(git -C "$WORK/$1" count-objects -v | sed -n 's/^count: //p')
	refused=no
	[ -f "$g/gc.log" ] && refused="yes: $(head -c 200 "$g/gc.log" | tr '\n' ' ')"
	echo ".git ${kb} KiB, loose $loose, gc.log refusal: $refused"
}
side() { # side plain|ckpt
	cd "$WORK/$1"
	t0=$(now_ms)
	tl=$t0
	s=1
	while [ $s -le "$N" ]; do
		for k in 7 13; do
			f=$(((s * k) % FILES))
			echo "step $s" >> "src/d$((f % 40))/f$f.txt"
		done
		if [ "$1" = plain ]; then
			git commit -qa -m "step $s"
		else
			git autodev checkpoint -m "step $s" > /dev/null
			[ $((s % 100)) -eq 0 ] && git gc --auto --quiet
		fi
		if [ $((s % EVERY)) -eq 0 ]; then
			t=$(now_ms)
			echo "step $s $(((t - t0) / 1000)) s, $(((t - tl) / EVERY)) ms/step, $(sizes "$1")" >> "$WORK/progress.$1"
			tl=$t
		fi
		s=$((s + 1))
	done
	echo done >> "$WORK/progress.$1"
}
side plain &
pp=$!
side ckpt &
cp=$!
wait $pp
wait $cp
# Let a detached gc finish, then ask git gc --auto once more on each side.
for s in plain ckpt; do
	while [ -f "$WORK/$s/.git/gc.pid" ] && kill -0 "$(cut -d' ' -f1 "$WORK/$s/.git/gc.pid")" 2>/dev/null; do sleep 1; done
	git -C "$WORK/$s" -c gc.autoDetach=false gc --auto --quiet 2>&1 | sed "s/^/$s: /"
done
{
	for s in plain ckpt; do echo "final $s: $(sizes $s)"; done
	p=$(du -sk "$WORK/plain/.git" | cut -f1)
	c=$(du -sk "$WORK/ckpt/.git" | cut -f1)
	echo "ratio ckpt/plain after git gc --auto: $(echo "scale=2; $c / $p" | bc)"
	echo "op log: $(git -C "$WORK/ckpt" autodev op log | wc -l) operations; segments: $(git -C "$WORK/ckpt" for-each-ref refs/nudgethis-oplog/segments/ | wc -l); kept packs: $(ls "$WORK/ckpt/.git/objects/pack/" | grep -c '\.keep$' || true)"
	echo "checkpoints: $(git -C "$WORK/ckpt" autodev restore --json | grep -c '"id"' || true)"
	for s in ckpt plain; do
		echo "unreachable in $s, by type: $(git -C "$WORK/$s" fsck --unreachable --no-reflogs 2>/dev/null | awk '{print $2}' | sort | uniq -c | tr -s ' \n' ' ')"
	done
	git -C "$WORK/ckpt" fsck --strict > /dev/null 2>&1 && echo "git fsck --strict (ckpt): clean" || echo "git fsck --strict (ckpt): NOT clean"
	echo "work folder: $WORK"
} > "$WORK/result" 2>&1
cat "$WORK/result"
