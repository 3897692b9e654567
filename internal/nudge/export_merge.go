package nudge

// What the core opens to the three-way merges of internal/nudge/merge.

// Edited is the verdict on a file whose content differs from what was
// expected of it.
const Edited = vEdited

// PlainFor reports whether git converts nothing for any of paths (see
// git.PlainFiles): then their files' bytes are what git stores, and are
// read in this process.
func (o *FileOps) PlainFor(paths []string) bool { return o.plainFor(paths) }
