package autodev

import (
	"path/filepath"

	"github.com/nudgethis/git-nudge/internal/autodev/checkpoints"
)

// The journal of checkpoints (checkpoints.json) is package checkpoints';
// its types are named here so that callers keep writing autodev.Entry,
// autodev.Journal and autodev.JournalCache.
type (
	// Entry is one checkpoint in .autodev/checkpoints.json.
	Entry = checkpoints.Entry
	// Journal is the list of checkpoints, oldest first.
	Journal = checkpoints.Journal
	// JournalCache keeps the last checkpoints.json decoded for a
	// long-lived reader (see UseJournalCache).
	JournalCache = checkpoints.Cache
)

// RebuildAdvice is what to do about a corrupt checkpoints.json: it is
// never overwritten, but history can rebuild it once it is out of the way.
const RebuildAdvice = checkpoints.RebuildAdvice

// journalFile is ws's checkpoints.json: its summary beside it, appends
// told to ws's transaction, and crash tests' fault points when set.
func (ws *Workspace) journalFile() *checkpoints.File {
	f := &checkpoints.File{
		Path:    ws.CheckpointsPath(),
		Summary: filepath.Join(ws.Dir, ".checkpoints.json.summary"),
		Cache:   ws.journalCache,
		Prepare: ws.ensureDir,
	}
	if ws.Repo != nil {
		f.Tx = ws.Repo.Tx
	}
	if faults.Set() {
		f.Fault = faultPoint
	}
	return f
}

// LoadJournal reads checkpoints.json. A missing file is an empty journal
// (Missing set); a file that does not parse is a *journal.CorruptError
// naming it, and is left as it is.
func (ws *Workspace) LoadJournal() (*Journal, error) { return ws.journalFile().Load() }

// loadJournalSkim reads checkpoints.json for a command that only appends
// to it (checkpoints.File.LoadSkim).
func (ws *Workspace) loadJournalSkim() (*Journal, error) { return ws.journalFile().LoadSkim() }

// loadJournalTail is loadJournalSkim for a checkpoint, reading only the
// summary and the file's end while the summary holds
// (checkpoints.File.LoadTail).
func (ws *Workspace) loadJournalTail() (*Journal, error) { return ws.journalFile().LoadTail() }

// saveJournal writes checkpoints.json: appended in place when j only
// adds entries, else rewritten atomically (checkpoints.File.Save).
func (ws *Workspace) saveJournal(j *Journal) error { return ws.journalFile().Save(j) }

// UseJournalCache makes ws's LoadJournal use c.
func (ws *Workspace) UseJournalCache(c *JournalCache) { ws.journalCache = c }
