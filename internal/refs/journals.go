package refs

// The suite's state in a work tree, relative to its top level: the folders
// of git nudge and git autodev, and the journals in them that commands
// change (and the operation log records).
const (
	NudgeDir   = ".nudgethis"
	AutodevDir = ".autodev"

	// SavesJournal lists git nudge's saves; TasksFolder holds one task
	// record "<id>.json" a task.
	SavesJournal = NudgeDir + "/saves.json"
	TasksFolder  = NudgeDir + "/tasks/"
	// CheckpointsJournal lists git autodev's checkpoints; StateJournal
	// is its run state.
	CheckpointsJournal = AutodevDir + "/checkpoints.json"
	StateJournal       = AutodevDir + "/state.json"
)
