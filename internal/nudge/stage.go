package nudge

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/nudgethis/git-nudge/internal/proc"
	"github.com/nudgethis/git-nudge/internal/worktree"
)

// stageDirName is the folder of .nudgethis where apply and undo prepare the
// new file contents before moving them into the work tree: one folder
// <pid>-<random> per command, on the work tree's own filesystem, removed
// when the command ends. A folder left by a killed command is removed by
// the next command that takes the workspace lock (list and show included).
const stageDirName = "stage"

// NewStage creates a fresh, private stage folder and returns its path.
func (w *Workspace) NewStage() (string, error) {
	if _, err := worktree.RealDir(w.Repo.WorkTree, StateDirName+"/"+stageDirName, true); err != nil {
		return "", err
	}
	var b [8]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", err
	}
	dir := filepath.Join(w.Dir, stageDirName, strconv.Itoa(os.Getpid())+"-"+hex.EncodeToString(b[:]))
	if err := os.Mkdir(dir, 0o700); err != nil {
		return "", fmt.Errorf("creating a folder to prepare the new file contents: %w", err)
	}
	return dir, nil
}

// RemoveStage removes stage folder name (a name in .nudgethis/stage) and
// everything in it, through an os.Root at the work tree's top level so
// that nothing outside can be reached even if a folder was swapped for a
// symlink. It then removes .nudgethis/stage itself when that left it
// empty. An empty name removes only an empty .nudgethis/stage.
func (w *Workspace) RemoveStage(name string) error {
	r, err := os.OpenRoot(w.Repo.WorkTree)
	if err != nil {
		return err
	}
	defer r.Close()
	stage := filepath.Join(StateDirName, stageDirName)
	if name != "" {
		if err := r.RemoveAll(filepath.Join(stage, name)); err != nil {
			return err
		}
	}
	_ = r.Remove(stage) // only when empty: another command's folder stays
	return nil
}

// cleanStages removes the stage folders of processes that are gone. It
// creates nothing: without a stage folder there is nothing to do. It runs
// with the workspace lock held, which every apply and undo holds while its
// stage folder exists, and keeps a folder whose process is alive all the
// same.
func (w *Workspace) cleanStages() {
	if ok, err := worktree.RealDir(w.Repo.WorkTree, StateDirName+"/"+stageDirName, false); err != nil || !ok {
		return
	}
	ents, err := os.ReadDir(filepath.Join(w.Dir, stageDirName))
	if err != nil {
		return
	}
	for _, e := range ents {
		pid, _, _ := strings.Cut(e.Name(), "-")
		n, err := strconv.Atoi(pid)
		if err == nil && (n == os.Getpid() || !proc.Gone(n)) {
			continue
		}
		_ = w.RemoveStage(e.Name())
	}
	if len(ents) == 0 {
		_ = w.RemoveStage("")
	}
}
