package nudge

import "github.com/nudgethis/git-nudge/internal/git"

// The largest content apply writes, and what apply and undo tell the
// operation log of the files they change (Workspace.Files). The engine that
// looks at and writes those files is internal/nudge/patchfiles.

// MaxFileSize is the largest new content apply writes (16 MiB).
const MaxFileSize = git.MaxFileSize

// FilesWatch is told by apply and undo what they change in the work tree
// (the operation log records from it instead of reading the files again):
// Before, right before the first file is touched, each path of the patch
// with what it holds, just checked; After, once every file is written and
// verified, what they hold then. A state is the file's mode and the blob
// of its raw bytes, an object the repository has (the task's own
// versions); nil is no file; a path missing from the map was not known
// without reading it (where git converts the files' bytes, nothing is).
type FilesWatch struct {
	Before func(paths []string, states map[string]*FileState)
	After  func(states map[string]*FileState)
}

// FileState is a file as FilesWatch reports it.
type FileState struct {
	Mode string
	Blob string
}
