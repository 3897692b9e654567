package tests

// fullOnly are the scenarios the fast tier (go test -short) leaves to the
// full run (.ci/run runs every scenario), each with why: loops over crash
// and fault points, scenarios that wait for processes to be killed,
// interrupted or timed out, the runners that need another machine's
// engine (sshd, podman), and the slowest scenarios of areas that other
// scenarios and the command packages' in-process tests (internal/cli/
// nudgecmd, internal/cli/autodevcmd) also cover. Every other scenario runs
// in both tiers.
var fullOnly = map[string]string{
	"apply_fault_points":       "loops over apply's crash points",
	"apply_paths_fault_points": "loops over a partial apply's crash points",
	"op_fault_points":          "loops over the op log's crash points",
	"save_reviewed_crash":      "kills save at each step",
	"refresh_crash":            "kills refresh at each step",

	"work_interrupt":                  "interrupts git nudge work and waits for its task to end",
	"work_killed":                     "kills git nudge work mid-task",
	"run_killed":                      "kills git nudge run mid-command",
	"autodev_run_killed":              "kills git autodev run mid-command",
	"queue_work_killed_after_prepare": "kills git nudge work after it prepared a task",
	"validate_timeout_interrupted":    "waits for a validation command's timeout",
	"drop_live_process":               "waits for a task's left-over process",

	"runner_ssh":            "needs sshd (runner_command covers the runner protocol)",
	"runner_ssh_drop":       "needs sshd",
	"runner_container":      "needs podman",
	"runner_container_drop": "needs podman",
	"runner_mixed":          "needs sshd and podman",

	"worktree_release":   "waits for processes holding a worktree (run and drop cover its release)",
	"snapshot_fsmonitor": "starts git's fsmonitor daemon (snapshot_untracked_cache covers the fast path)",
	"drop_many":          "drops many tasks at once (drop_force and the in-process drop tests cover one and two)",
}
