#!/bin/sh
# Usage: autoprune-cost.sh WORK BINDIR [ROUNDS] [TASKS]
# What automatic pruning adds to the command that triggers it, on the day
# it is due and finds nothing old (the daily case): `git nudge snapshot`
# in a 30-file repository with TASKS (1,000) task records, with
# nudge.retention set and the prune stamp removed, against the same
# command without the setting. The two alternate round by round (a warm-up
# round is thrown away); for each, the CPU time (user + system of the
# command and its git processes, from wait4) and the wall time.
# Prints the medians, their ratio, and the median of the per-round
# differences (ours minus baseline), which pairs each round with its
# neighbour and so cancels most of the load's drift. Times are printed,
# never checked.
set -e
WORK=$1
BINDIR=$2
ROUNDS=${3:-41}
TASKS=${4:-1000}
mkdir -p "$WORK/home"
export HOME="$WORK/home" GIT_CONFIG_NOSYSTEM=1 PATH="$BINDIR:$PATH"
printf '[user]\n\tname = Bench\n\temail = bench@example.com\n' > "$HOME/.gitconfig"
R="$WORK/repo"
rm -rf "$R"
git init -q "$R"
cd "$R"
i=0
while [ $i -lt 30 ]; do echo "file $i" > f$i.txt; i=$((i + 1)); done
git add -A
git commit -qm base
git nudge run -- sh -c 'echo edit >> f1.txt' > /dev/null 2>&1
i=2
while [ $i -le "$TASKS" ]; do
	sed "s/\"id\": \"t1\"/\"id\": \"t$i\"/" .nudgethis/tasks/t1.json > .nudgethis/tasks/t$i.json
	i=$((i + 1))
done
sleep 3                        # older than a racy timestamp
git nudge snapshot > /dev/null # lists the copies as quiet records (their cache)
echo "tasks: $(ls .nudgethis/tasks | grep -c '^t[0-9]*\.json$'), load before: $(cut -d' ' -f1-3 /proc/loadavg)"
python3 - "$ROUNDS" <<'PY'
import os, subprocess, sys, time, statistics as st
rounds = int(sys.argv[1])
def run(due):
    if due:
        subprocess.run(["git", "config", "nudge.retention", "3650d"], check=True)
        try: os.remove(".nudgethis/prune-stamp")
        except FileNotFoundError: pass
    else:
        subprocess.run(["git", "config", "--unset", "nudge.retention"])
    t0 = time.monotonic()
    p = subprocess.Popen(["git", "nudge", "snapshot"], stdout=subprocess.DEVNULL)
    _, status, ru = os.wait4(p.pid, 0)
    wall = time.monotonic() - t0
    assert status == 0, status
    return wall, ru.ru_utime + ru.ru_stime
due, off = [], []
for r in range(rounds + 1):
    a = run(True); b = run(False)
    if r > 0:
        due.append(a); off.append(b)
for name, i in (("CPU", 1), ("wall", 0)):
    a = [x[i] for x in due]; b = [x[i] for x in off]
    d = [x - y for x, y in zip(a, b)]
    print("%s: due median %.1f ms, without the setting %.1f ms, ratio %.3fx; median per-round difference %+.1f ms (%+.1f%%)" % (
        name, st.median(a) * 1000, st.median(b) * 1000, st.median(a) / st.median(b), st.median(d) * 1000, st.median(d) / st.median(b) * 100))
PY
echo "rounds: $ROUNDS, load after: $(cut -d' ' -f1-3 /proc/loadavg)"
