#!/bin/bash
# Usage: save-edits-cpu.sh REPO HOME BEFORE_BINDIR AFTER_BINDIR [ROUNDS]
# CPU time (user+sys of git nudge save and its children, /usr/bin/time) of
# the bench's saveEdits save of 10 files, with a staged and an unstaged
# edit of yours in each (mine=2) and without (mine=0), for two builds,
# interleaved: each round runs the four variants in a rotated order; round
# 0 is a warm-up. REPO is a bench repository (go run ./bench -save-only
# -sizes 10000 -work W leaves W/repo-10000, HOME W/home). Prints one line
# per save: round build mine user sys elapsed.
set -e
repo=$1 home=$2 before=$3 after=$4 rounds=${5:-9}
cd "$repo"
export HOME=$home GIT_CONFIG_NOSYSTEM=1
one() { # one BINDIR SEED MINE
  local bin=$1 seed=$2 mine=$3
  PATH=$bin:$PATH bash -e -c '
seed=$1 mine=$2
list=$(git ls-files | awk -v s="$seed" "BEGIN{srand(s)} {a[NR]=\$0} END{n=0; while(n<10){k=int(rand()*NR)+1; if(!(k in u)){u[k]=1; printf \"%s \", a[k]; n++}}}")
git reset -q && git checkout -q -- . && git write-tree >/dev/null
if [ "$mine" = 2 ]; then
  for f in $list; do sed -i "1i // mine, staged" $f; git add $f; sed -i "2i // mine, unstaged" $f; done
fi
id=$(git nudge snapshot --json | sed -n "s/.*\"id\": *\"\(t[0-9]*\)\".*/\1/p" | head -1)
snap=$(git rev-parse "refs/nudgethis/snapshots/$id")
export GIT_INDEX_FILE="$(git rev-parse --git-dir)/bench-task-index"
git read-tree "$snap"
for f in $list; do
  blob=$( (git cat-file blob "$snap:$f"; echo "// task $id") | git hash-object -w --stdin)
  git update-index --cacheinfo "100644,$blob,$f"
done
res=$(git commit-tree "$(git write-tree)" -p "$snap" -m task)
rm -f "$GIT_INDEX_FILE"; unset GIT_INDEX_FILE
git nudge capture "$id" --from "$res" >/dev/null && git nudge apply "$id" >/dev/null
t=$(mktemp)
/usr/bin/time -f "%U %S %e" -o "$t" git nudge save -m "bench save" >/dev/null
cat "$t"; rm -f "$t"' one "$seed" "$mine"
}
vars=("before 2" "before 0" "after 2" "after 0")
for r in $(seq 0 "$rounds"); do
  for k in 0 1 2 3; do
    v=(${vars[$(( (k + r) % 4 ))]})
    bin=$before; [ "${v[0]}" = after ] && bin=$after
    echo "$r ${v[0]} ${v[1]} $(one "$bin" $((1000 + r*10 + k)) "${v[1]}")"
  done
done
git reset -q && git checkout -q -- .
