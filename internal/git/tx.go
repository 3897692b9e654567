package git

import "github.com/nudgethis/git-nudge/internal/txn"

// refsAboutToChange tells r's transaction (Repo.Tx), when it has one,
// that r is about to change names (SetRef, DeleteRef, UpdateRefs,
// SetRefFast; "HEAD" for SetHeadTarget and ResetHard, which move HEAD or
// the branch it names): the operation log reads what such a ref held
// then, instead of reading every ref in case the command changes one.
func (r *Repo) refsAboutToChange(names ...string) {
	txn.RefsChanging(r.Tx, r.CommonDir, names...)
}
