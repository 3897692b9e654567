// Package txn is the transaction a command's changes go through. The
// layers that change refs (internal/git, through a *git.Repo) and task
// records (internal/journal, through a workspace) tell the Tx that Repo
// carries what they are about to change, right before they change it: the
// operation log's recording (internal/oplog.Recording is a Tx) reads what
// each held then, and so records exactly what the command changed.
//
// A Tx belongs to one command. Work that is no command's (the dashboard's
// queue executor, running beside recorded page actions in one process)
// carries none and tells no one: there is no process-wide list.
package txn

import "context"

// Tx is told about a change right before it happens, in the goroutine
// making it (several goroutines of one command may call it at once). It
// must not change refs or journals itself.
type Tx interface {
	// RefsChanging: the refs names of the repository whose common git
	// dir is commonDir are about to change ("HEAD" for HEAD or the
	// branch it names).
	RefsChanging(commonDir string, names []string)
	// JournalChanging: the journal file at path is about to be replaced
	// or removed.
	JournalChanging(path string)
}

// JournalAppender is a Tx that can be told exactly what an append in
// place changed in a journal, so that it need not read the file again:
// after the file's first prefix bytes and before its last suffix bytes
// (the same in both versions), old became new; sum is the hex SHA-256 of
// those outside bytes (prefix, then suffix). It is told right after the
// bytes are durable, while the writer still holds the journal's lock;
// the slices are not changed afterwards.
type JournalAppender interface {
	JournalAppended(path string, prefix, suffix int64, old, new []byte, sum string)
}

type key struct{}

// With returns ctx carrying tx: a repository opened with it
// (git.Discover) carries tx, so that what the command changes through it
// is told to tx.
func With(ctx context.Context, tx Tx) context.Context { return context.WithValue(ctx, key{}, tx) }

// From is the Tx ctx carries (nil: none).
func From(ctx context.Context) Tx {
	tx, _ := ctx.Value(key{}).(Tx)
	return tx
}

// RefsChanging tells tx, when there is one.
func RefsChanging(tx Tx, commonDir string, names ...string) {
	if tx != nil {
		tx.RefsChanging(commonDir, names)
	}
}

// JournalChanging tells tx, when there is one.
func JournalChanging(tx Tx, path string) {
	if tx != nil {
		tx.JournalChanging(path)
	}
}
