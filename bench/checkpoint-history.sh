#!/bin/bash
# Checkpoint cost with 10,000 earlier checkpoints against 10: two 1,000-file
# repositories per binary folder, checkpoints.json of 10 and 10,000 entries,
# `git autodev checkpoint` after a one-line edit, rounds interleaved; medians
# of wall time and CPU time (user+sys of the command and its git processes).
# usage: bench/checkpoint-history.sh ROUNDS BIN_A BIN_B (folders holding
# git-autodev and git-nudge; A and B may be the same)
R=${1:-15}; A=$2; B=$3
W=${WORK:-/tmp/checkpoint-history}; rm -rf $W; mkdir -p $W
mk() { # dir n
  d=$1; n=$2
  git init -q $d; cd $d
  for i in $(seq 1 1000); do mkdir -p d$((i%20)); echo "line $i" > d$((i%20))/f$i.txt; done
  git add -A; git commit -qm base
  c=$(git rev-parse HEAD)
  mkdir -p .autodev; echo '*' > .autodev/.gitignore
  python3 - "$n" "$c" > .autodev/checkpoints.json <<'PY'
import sys,datetime
n=int(sys.argv[1]); c=sys.argv[2]
now=datetime.datetime.utcnow()
out=["["]
for i in range(1,n+1):
  typ,label=("baseline","baseline before run") if i%50==1 else ("task","thread — step %d"%i)
  t=(now-datetime.timedelta(minutes=n-i)).strftime("%Y-%m-%dT%H:%M:%SZ")
  s='  {"id":"c%d","commit":"%s","label":"%s","type":"%s","time":"%s","task":null,"mode":null}'%(i,c,label,typ,t)
  out.append(s+("," if i<n else ""))
out.append("]")
print("\n".join(out))
PY
  cd - >/dev/null
}
for bin in A B; do for n in 10 10000; do mk $W/$bin-$n $n; done; done
run() { # bin dir round
  dir=$1; bindir=$2; r=$3
  echo "edit $r $RANDOM" >> $dir/d3/f3.txt
  ( cd $dir && PATH=$bindir:$PATH /usr/bin/time -f "%e %U %S" -o $W/t.out git autodev checkpoint -m "bench round $r" >/dev/null )
  cat $W/t.out
}
: > $W/results
for r in $(seq 0 $R); do
  for bin in A B; do
    bd=$A; [ $bin = B ] && bd=$B
    for n in 10 10000; do
      out=$(run $W/$bin-$n $bd $r)
      [ $r -gt 0 ] && echo "$bin $n $out" >> $W/results
    done
  done
done
python3 - $W/results <<'PY'
import sys,statistics as st
rows={}
for l in open(sys.argv[1]):
  b,n,e,u,s=l.split(); rows.setdefault((b,n),[]).append((float(e)*1000,(float(u)+float(s))*1000))
for b in "AB":
  w10=st.median(x[0] for x in rows[(b,"10")]); w10k=st.median(x[0] for x in rows[(b,"10000")])
  c10=st.median(x[1] for x in rows[(b,"10")]); c10k=st.median(x[1] for x in rows[(b,"10000")])
  print(f"{b}: wall 10k {w10k:.0f} ms / 10 {w10:.0f} ms = {w10k/w10:.2f}x ; cpu 10k {c10k:.1f} ms / 10 {c10:.1f} ms = {c10k/c10:.2f}x  (n={len(rows[(b,'10')])})")
PY
