package apply

import (
	"context"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/nudgethis/git-nudge/internal/git"
	"github.com/nudgethis/git-nudge/internal/guard"
	"github.com/nudgethis/git-nudge/internal/nudge"
	"github.com/nudgethis/git-nudge/internal/nudge/merge"
	"github.com/nudgethis/git-nudge/internal/nudge/patchfiles"
	"github.com/nudgethis/git-nudge/internal/snapshot"
	"github.com/nudgethis/git-nudge/internal/worktree"
)

// planApply makes the steps of applying t and every reason not to.
func planApply(ctx context.Context, w *nudge.Workspace, ops *patchfiles.FileOps, t *nudge.Task, head git.Head, specs []string, ignored *[]string, o Options) ([]patchfiles.Step, []string, string, error) {
	p := &applyPlan{w: w, ops: ops, t: t}
	pick, refused, err := p.pick(ctx, specs, ignored)
	if err != nil {
		return nil, nil, "", err
	}
	if refused {
		return p.refused()
	}
	onBranch := p.onBranch(head)
	if t.Result == nil || len(t.Files) == 0 {
		p.rf.Add(t.ID+"'s result changes no files: there is nothing to apply", "")
		return p.refused()
	}
	p.startMalformedCheck(ctx)
	defer p.malformedResult()
	steps, err := p.writable(ctx, pick)
	if err == nil {
		err = p.checkObjects(ctx, steps)
	}
	if err == nil {
		steps, err = p.insideCone(ctx, steps)
	}
	var seenNow []patchfiles.Seen
	if err == nil && onBranch {
		seenNow, err = p.checkEdited(ctx, steps, o)
	}
	if err != nil {
		return p.failed(err)
	}
	if whole, err := p.refusedWhole(); err != nil || whole {
		if err != nil {
			return nil, nil, "", err
		}
		return p.refused()
	}
	if len(p.rf.Reasons) == 0 {
		// Bytes that checkout would not write back are kept for undo.
		changed, err := patchfiles.KeepRawBytes(ctx, w, ops, t, steps, seenNow, "since the snapshot")
		if err != nil {
			return p.failed(err)
		}
		for _, r := range changed {
			p.rf.Add(r, editedNext(t.ID))
		}
	}
	return steps, p.rf.Reasons, p.rf.Next(), nil
}

// applyPlan is one planning of an apply: the task, and the reasons not
// to apply it found so far.
type applyPlan struct {
	w   *nudge.Workspace
	ops *patchfiles.FileOps
	t   *nudge.Task
	rf  nudge.ReasonList
	// early are the reasons found before the check of the result's
	// trees started: a refusal of a malformed result keeps only them.
	early         nudge.ReasonList
	malformedc    chan malformedAnswer
	malformedDone bool
	malformed     malformedAnswer
}

// malformedAnswer is what the check of the result's trees found.
type malformedAnswer struct {
	reasons []string
	err     error
}

// refused is planApply's answer when the task is refused for the reasons
// found so far.
func (p *applyPlan) refused() ([]patchfiles.Step, []string, string, error) {
	return nil, p.rf.Reasons, p.rf.Next(), nil
}

// pick returns the changes to apply: those of the paths the pathspecs
// name (all without any), less those applied already, which are added to
// ignored when named. refused: a reason found refuses the apply before
// anything else is looked at.
func (p *applyPlan) pick(ctx context.Context, specs []string, ignored *[]string) (pick []nudge.FileChange, refused bool, err error) {
	t, add := p.t, p.rf.Add
	add(applyStateReason(t))
	if len(p.rf.Reasons) > 0 {
		return nil, true, nil
	}
	selected, err := selectPaths(ctx, p.w, t, specs)
	if err != nil {
		return nil, false, err
	}
	if selected != nil && len(selected) == 0 {
		add(fmt.Sprintf("no path of %s's patch matches %s", t.ID, showSpecs(specs)), fmt.Sprintf("git nudge diff %s --name-status lists the paths of its patch.", t.ID))
		return nil, true, nil
	}
	applied := t.AppliedPaths()
	for _, f := range t.Files {
		switch {
		case selected != nil && !selected[f.Path]:
		case applied[f.Path]:
			if selected != nil {
				*ignored = append(*ignored, f.Path)
			}
		default:
			pick = append(pick, f)
		}
	}
	if len(pick) == 0 && len(t.Files) > 0 {
		add(fmt.Sprintf("%s: every path named is applied already (%s)", t.ID, strings.Join(quoteAll(*ignored), ", ")), fmt.Sprintf("git nudge undo %s -- PATH takes a path back; git nudge show %s lists what is applied.", t.ID, t.ID))
		return nil, true, nil
	}
	return pick, false, nil
}

// onBranch reports whether HEAD is where the snapshot was taken, adding
// the reason when it is not.
func (p *applyPlan) onBranch(head git.Head) bool {
	t := p.t
	if r := branchReason(t.ID, "snapshotted", t.Branch, t.Head, head); r != "" {
		p.rf.Add(r, switchNext(t.Branch, t.Head))
		return false
	}
	return true
}

// startMalformedCheck starts the check of the result's trees (reading
// objects only), which runs while the paths are looked at: a crafted
// result is refused whole, before its paths are judged, and a malformed
// one throws away whatever the look at its paths found.
func (p *applyPlan) startMalformedCheck(ctx context.Context) {
	p.malformedc = make(chan malformedAnswer, 1)
	go func() {
		m, err := guard.MalformedResult(ctx, p.w.Repo, p.t.ID, *p.t.Result, p.t.Snapshot)
		p.malformedc <- malformedAnswer{m, err}
	}()
	p.early = nudge.ReasonList{Reasons: append([]string{}, p.rf.Reasons...), Nexts: append([]string{}, p.rf.Nexts...)}
}

// malformedResult waits for the check of the result's trees (once).
func (p *applyPlan) malformedResult() malformedAnswer {
	if !p.malformedDone {
		p.malformedDone = true
		p.malformed = <-p.malformedc
	}
	return p.malformed
}

// refusedWhole reports, once the check of the result's trees is done,
// whether the result is malformed, setting the reasons to those of such
// a refusal.
func (p *applyPlan) refusedWhole() (bool, error) {
	m := p.malformedResult()
	if m.err != nil {
		return false, m.err
	}
	if len(m.reasons) == 0 {
		return false, nil
	}
	p.rf = p.early
	for _, r := range m.reasons {
		p.rf.Add(r, fmt.Sprintf("Apply writes nothing of a malformed result. Capture %s again from its worktree (git nudge capture %s) or from a well-formed commit (git nudge capture %s --from REV).", p.t.ID, p.t.ID, p.t.ID))
	}
	return true, nil
}

// failed is planApply's answer to an error of the plan, unless the
// result is malformed: then the refusal, as when the check came first.
func (p *applyPlan) failed(err error) ([]patchfiles.Step, []string, string, error) {
	if whole, merr := p.refusedWhole(); merr == nil && whole {
		return p.refused()
	}
	return nil, nil, "", err
}

// manualNext is the advice on a path apply does not write.
const manualNext = "Apply writes nothing of a patch that has such paths: copy its changes over by hand (git nudge diff shows them)."

// writable makes the step of each picked change that apply can write,
// adding a reason for each it cannot: protected paths (by the rules
// recorded when the task was created, which the task could not change,
// and the patterns the config adds since, which only protect more),
// paths setup changed, attributes, nested repositories, symlinks,
// submodules and entries that are not ordinary files.
func (p *applyPlan) writable(ctx context.Context, pick []nudge.FileChange) ([]patchfiles.Step, error) {
	t := p.t
	opts, err := snapshot.LoadOptions(ctx, p.w.Repo)
	if err != nil {
		return nil, err
	}
	if t.Rules != nil {
		opts.Protect = append(append([]string{}, t.Rules.Protect...), opts.Protect...)
	}
	protection := opts.Protection()
	nested := nestedRepos{root: p.w.Repo.WorkTree, known: map[string]bool{}}
	bySetup := map[string]bool{}
	for _, f := range t.SetupFiles {
		bySetup[f.Path] = true
	}
	var steps []patchfiles.Step
	for _, f := range pick {
		s := patchfiles.Step{Path: f.Path, From: normState(f.Path, f.OldMode, f.OldBlob), To: normState(f.Path, f.NewMode, f.NewBlob)}
		modes := []*string{s.From.Mode, s.To.Mode}
		var reason string
		switch {
		case worktree.ValidPath(f.Path) != nil:
			reason = fmt.Sprintf("%s is not a path apply can write safely", nudge.QuotePath(f.Path))
		case bySetup[f.Path]:
			reason = fmt.Sprintf("%s was changed by the setup commands (nudge.setup) and then by the task; setup's changes are never applied and the task's version contains them, so it needs manual handling", nudge.QuotePath(f.Path))
		case protection.Protected(f.Path):
			reason = fmt.Sprintf("%s is a protected path (%s); apply never writes it", nudge.QuotePath(f.Path), snapshot.ProtectedSummary)
		case path.Base(f.Path) == ".gitattributes":
			reason = fmt.Sprintf("%s changes how git converts files on checkout; apply cannot write it and the files it governs consistently, so it needs manual handling", nudge.QuotePath(f.Path))
		case nested.inside(f.Path) != "":
			reason = fmt.Sprintf("%s is inside %s, a nested git repository that this repository does not track; apply never writes into another repository", nudge.QuotePath(f.Path), nudge.QuotePath(nested.inside(f.Path)))
		case hasMode(modes, git.ModeSymlink):
			reason = fmt.Sprintf("%s is a symlink in the snapshot or the result; changed symlinks need manual handling", nudge.QuotePath(f.Path))
		case hasMode(modes, git.ModeGitlink):
			reason = fmt.Sprintf("%s is a submodule; submodule changes need manual handling", nudge.QuotePath(f.Path))
		case (nudge.Present(s.From) && !nudge.IsRegularMode(s.From.Mode)) || (nudge.Present(s.To) && !nudge.IsRegularMode(s.To.Mode)) || (!nudge.Present(s.From) && !nudge.Present(s.To)):
			reason = fmt.Sprintf("%s has an entry apply does not understand; it needs manual handling", nudge.QuotePath(f.Path))
		default:
			steps = append(steps, s)
			continue
		}
		p.rf.Add(reason, manualNext)
	}
	return steps, nil
}

// checkObjects checks, in one batch, the new contents (present, at most
// 16 MiB) and the snapshot's contents (present, so that undo can bring
// them back), adding a reason for each that fails.
func (p *applyPlan) checkObjects(ctx context.Context, steps []patchfiles.Step) error {
	type want struct {
		path string
		old  bool
	}
	var blobs []string
	var wants []want
	for _, s := range steps {
		if nudge.Present(s.To) {
			blobs = append(blobs, *s.To.Blob)
			wants = append(wants, want{path: s.Path})
		}
		if nudge.Present(s.From) {
			blobs = append(blobs, *s.From.Blob)
			wants = append(wants, want{path: s.Path, old: true})
		}
	}
	infos, err := p.w.Repo.ObjectInfos(ctx, blobs)
	if err != nil {
		return err
	}
	for i, info := range infos {
		q := nudge.QuotePath(wants[i].path)
		switch {
		case (info.Missing || info.Type != "blob") && wants[i].old:
			p.rf.Add(fmt.Sprintf("the snapshot's version of %s is missing from the repository's objects, so undo could not restore it", q), "")
		case info.Missing || info.Type != "blob":
			p.rf.Add(fmt.Sprintf("the new content of %s is missing from the repository's objects", q), "")
		case info.Size > nudge.MaxFileSize && !wants[i].old:
			p.rf.Add(fmt.Sprintf("the new content of %s is %.1f MiB, over the 16 MiB limit", q, float64(info.Size)/(1<<20)), manualNext)
		}
	}
	return nil
}

// insideCone returns the steps inside a sparse checkout's cone, adding a
// reason for each outside it.
func (p *applyPlan) insideCone(ctx context.Context, steps []patchfiles.Step) ([]patchfiles.Step, error) {
	steps, outside, err := outsideCone(ctx, p.w, steps)
	if err != nil {
		return nil, err
	}
	for _, r := range outside {
		p.rf.Add(r, sparseNext)
	}
	return steps, nil
}

// checkEdited adds a reason for each path edited since the snapshot,
// unless apply merges it (o.Merge) without conflicts (or writes the
// conflicts, o.Conflicts); it returns what it saw of each path.
func (p *applyPlan) checkEdited(ctx context.Context, steps []patchfiles.Step, o Options) ([]patchfiles.Seen, error) {
	t := p.t
	edited, verdicts, seenNow, err := p.ops.CheckEach(ctx, steps, "since the snapshot")
	if err != nil {
		return nil, err
	}
	if o.Merge {
		var conflicts []string
		edited, conflicts, err = merge.Edited(ctx, p.w, p.ops, t, steps, edited, verdicts, seenNow, o.Conflicts)
		if err != nil {
			return nil, err
		}
		for _, r := range conflicts {
			p.rf.Add(r, fmt.Sprintf("Your edits were kept. git nudge apply --conflicts %s writes the merge with conflict markers for you to resolve (save refuses until they are gone); git nudge apply %s -- PATH applies other paths alone.", t.ID, t.ID))
		}
	} else {
		edited = nonEmpty(edited)
	}
	for _, r := range edited {
		p.rf.Add(r, editedNext(t.ID))
	}
	return seenNow, nil
}

func nonEmpty(list []string) []string {
	var out []string
	for _, s := range list {
		if s != "" {
			out = append(out, s)
		}
	}
	return out
}

func hasMode(modes []*string, m string) bool {
	for _, x := range modes {
		if x != nil && *x == m {
			return true
		}
	}
	return false
}

// nestedRepos answers whether a path lies inside a nested git repository
// of the work tree (a folder with its own .git), remembering each folder
// it looked at.
type nestedRepos struct {
	root  string
	known map[string]bool
}

// inside returns the nested repository's folder holding p, or "".
func (n nestedRepos) inside(p string) string {
	dir := path.Dir(p)
	var dirs []string
	for dir != "." && dir != "/" {
		dirs = append(dirs, dir)
		dir = path.Dir(dir)
	}
	for i := len(dirs) - 1; i >= 0; i-- { // outermost first
		d := dirs[i]
		repo, ok := n.known[d]
		if !ok {
			_, err := os.Lstat(filepath.Join(n.root, filepath.FromSlash(d), ".git"))
			repo = err == nil
			n.known[d] = repo
		}
		if repo {
			return d
		}
	}
	return ""
}
