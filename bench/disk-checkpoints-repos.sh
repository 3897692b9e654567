# Sourced by disk-checkpoints.sh and disk-checkpoints-fast.sh, with WORK,
# FILES, SRC and optionally BIN, OPKEEP and GCAUTO set: puts git-nudge
# and git-autodev in WORK/bin (built from SRC, or copied from BIN), gives
# git a HOME of its own, generates the FILES-file repository WORK/base and
# clones it as WORK/plain (plain commits) and WORK/ckpt (checkpoints).
mkdir -p "$WORK/bin" "$WORK/home"
if [ -n "$BIN" ]; then
	cp "$BIN/git-nudge" "$BIN/git-autodev" "$WORK/bin/"
else
	(cd "$SRC" && go build -o "$WORK/bin/" ./cmd/git-nudge ./cmd/git-autodev)
fi
export HOME="$WORK/home" GIT_CONFIG_NOSYSTEM=1 PATH="$WORK/bin:$PATH"
printf '[user]\n\tname = Bench\n\temail = bench@example.com\n[init]\n\tdefaultBranch = main\n' > "$HOME/.gitconfig"

rm -rf "$WORK/base" "$WORK/plain" "$WORK/ckpt"
git init -q "$WORK/base"
cd "$WORK/base"
i=0
while [ $i -lt "$FILES" ]; do
	d=src/d$((i % 40))
	mkdir -p $d
	printf 'file %d\nline two\nline three\n' $i > $d/f$i.txt
	i=$((i + 1))
done
git add -A && git commit -q -m base && git gc -q
git clone -q --no-local "$WORK/base" "$WORK/plain"
git clone -q --no-local "$WORK/base" "$WORK/ckpt"
[ -n "$OPKEEP" ] && git -C "$WORK/ckpt" config op.keep "$OPKEEP"
if [ -n "$GCAUTO" ]; then
	git -C "$WORK/plain" config gc.auto "$GCAUTO"
	git -C "$WORK/ckpt" config gc.auto "$GCAUTO"
fi
