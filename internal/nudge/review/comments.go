// Package review is what a person reviewing a task works with: the
// task's patch (Diff) and the review comments kept with the task, which
// its next run is given as a file.
package review

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/nudgethis/git-nudge/internal/journal"
	"github.com/nudgethis/git-nudge/internal/nudge"
)

// MaxCommentText bounds one comment's text (bytes).
const MaxCommentText = 64 << 10

// Comment is one review comment kept with a task: on a path of it, on
// lines Line..EndLine of the path's version in the task's result, or on
// the task as a whole (no path).
type Comment struct {
	ID      string    `json:"id"`
	Path    string    `json:"path"`
	Line    *int      `json:"line"`
	EndLine *int      `json:"end_line"`
	Text    string    `json:"text"`
	Time    time.Time `json:"time"`
}

// MarshalJSON writes the path as bytes survive JSON.
func (c Comment) MarshalJSON() ([]byte, error) {
	type plain Comment
	v := plain(c)
	return nudge.MarshalPath(&v, &v.Path)
}

// UnmarshalJSON reads the path back, from path_b64 when present.
func (c *Comment) UnmarshalJSON(data []byte) error {
	type plain Comment
	return nudge.UnmarshalPath(data, (*plain)(c), &c.Path)
}

// Where is the comment's place for people: "a.txt:3-5", "a.txt", or "(the
// task)".
func (c Comment) Where() string {
	if c.Path == "" {
		return "(the task)"
	}
	s := nudge.QuotePath(c.Path)
	if c.Line != nil {
		s += ":" + strconv.Itoa(*c.Line)
		if c.EndLine != nil && *c.EndLine != *c.Line {
			s += "-" + strconv.Itoa(*c.EndLine)
		}
	}
	return s
}

// commentFile is .nudgethis/tasks/<id>.comments.json: a journal beside the
// task's record (not in it, so that a run that holds the record for
// minutes cannot write over a comment added meanwhile), which the
// operation log records and undoes like the records.
type commentFile struct {
	Version  int       `json:"version"`
	Task     string    `json:"task"`
	Next     int       `json:"next"` // the number of the next comment id; ids are never reused
	Comments []Comment `json:"comments"`
}

// NewComment is what a caller asks to add.
type NewComment struct {
	Path    string `json:"path"`
	Line    int    `json:"line"`
	EndLine int    `json:"end_line"`
	Text    string `json:"text"`
}

func commentsPath(w *nudge.Workspace, id string) string {
	return filepath.Join(w.TasksDir(), id+".comments.json")
}

// readComments reads task id's comments file (an empty one when there is
// lockComments takes the workspace lock, checks that task id has a
// record and reads its comments; the caller releases the lock.
func lockComments(ctx context.Context, w *nudge.Workspace, id string) (*journal.Lock, *commentFile, error) {
	l, err := w.Lock(ctx, "git-nudge comment")
	if err != nil {
		return nil, nil, err
	}
	if _, err := w.Load(id); err != nil {
		l.Release()
		return nil, nil, err
	}
	f, err := readComments(w, id)
	if err != nil {
		l.Release()
		return nil, nil, err
	}
	return l, f, nil
}

// none).
func readComments(w *nudge.Workspace, id string) (*commentFile, error) {
	var f commentFile
	err := journal.Read(commentsPath(w, id), &f)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return &commentFile{Version: 1, Task: id, Next: 1}, nil
	case err != nil:
		return nil, err
	case f.Task != id:
		return nil, &journal.CorruptError{Path: commentsPath(w, id), Err: fmt.Errorf("comments are for %q, not %q", f.Task, id)}
	}
	if f.Next < 1 {
		f.Next = 1
	}
	return &f, nil
}

// Comments lists task id's review comments, oldest first (never nil).
func Comments(w *nudge.Workspace, id string) ([]Comment, error) {
	if _, err := w.Load(id); err != nil {
		return nil, err
	}
	f, err := readComments(w, id)
	if err != nil {
		return nil, err
	}
	if f.Comments == nil {
		return []Comment{}, nil
	}
	return f.Comments, nil
}

// AddComment keeps a review comment with task id (any state) and returns
// it with its id.
func AddComment(ctx context.Context, w *nudge.Workspace, id string, n NewComment) (*Comment, error) {
	refuse := func(reason, next string) error {
		return &nudge.RefusedError{What: "cannot add the comment to " + id, Reasons: []string{reason}, Next: next}
	}
	text := strings.TrimRight(n.Text, "\r\n\t ")
	switch {
	case strings.TrimSpace(text) == "":
		return nil, refuse("its text is empty", "Say what should change: git nudge comment "+id+" -m TEXT.")
	case len(text) > MaxCommentText:
		return nil, refuse(fmt.Sprintf("its text is %d bytes, more than %d", len(text), MaxCommentText), "Shorten it, or split it into several comments.")
	case n.Line < 0 || n.EndLine < 0:
		return nil, refuse("a line number is negative", "Lines are counted from 1.")
	case n.EndLine != 0 && n.Line == 0:
		return nil, refuse("it has an end line but no line", "Give --line N-M.")
	case n.EndLine != 0 && n.EndLine < n.Line:
		return nil, refuse(fmt.Sprintf("its lines %d-%d end before they start", n.Line, n.EndLine), "Give the lower line first.")
	case n.Line != 0 && n.Path == "":
		return nil, refuse("it names a line but no path", "Give the file too: --path P --line N.")
	}
	p := n.Path
	if p != "" {
		var ok bool
		if p, ok = cleanRepoPath(p); !ok {
			return nil, refuse(fmt.Sprintf("%s is not a path inside the repository", nudge.QuotePath(n.Path)), "Give the path as git nudge diff "+id+" --name-only shows it.")
		}
	}
	l, f, err := lockComments(ctx, w, id)
	if err != nil {
		return nil, err
	}
	defer l.Release()
	c := Comment{ID: "c" + strconv.Itoa(f.Next), Path: p, Text: text, Time: w.Now().UTC()}
	if n.Line != 0 {
		line, end := n.Line, n.Line
		if n.EndLine != 0 {
			end = n.EndLine
		}
		c.Line, c.EndLine = &line, &end
	}
	f.Next++
	f.Comments = append(f.Comments, c)
	if err := writeComments(w, f); err != nil {
		return nil, err
	}
	return &c, nil
}

// DeleteComment removes comment cid of task id.
func DeleteComment(ctx context.Context, w *nudge.Workspace, id, cid string) (*Comment, error) {
	l, f, err := lockComments(ctx, w, id)
	if err != nil {
		return nil, err
	}
	defer l.Release()
	for i, c := range f.Comments {
		if c.ID == cid {
			f.Comments = append(f.Comments[:i:i], f.Comments[i+1:]...)
			return &c, writeComments(w, f)
		}
	}
	return nil, &nudge.RefusedError{What: "cannot delete comment " + strconv.Quote(cid) + " of " + id,
		Reasons: []string{"the task has no comment with that id"},
		Next:    "git nudge comment " + id + " --list shows its comments and their ids."}
}

func writeComments(w *nudge.Workspace, f *commentFile) error {
	p := commentsPath(w, f.Task)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return err
	}
	if f.Comments == nil {
		f.Comments = []Comment{}
	}
	return journal.WriteIn(w.Repo.Tx, p, f)
}

// RemoveComments removes task id's comments (when the task is dropped).
func RemoveComments(w *nudge.Workspace, id string) error {
	err := journal.RemoveIn(w.Repo.Tx, commentsPath(w, id))
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	return err
}

// cleanRepoPath is p as a path relative to the top of the work tree, or
// false when it leaves it.
func cleanRepoPath(p string) (string, bool) {
	p = strings.ReplaceAll(p, `\`, "/")
	if strings.HasPrefix(p, "/") || strings.ContainsRune(p, 0) {
		return "", false
	}
	c := path.Clean(p)
	if c == "." || c == ".." || strings.HasPrefix(c, "../") {
		return "", false
	}
	return c, true
}

// TaskView is a task record with its review comments: show --json and
// the dashboard's task document ("comments" after the record's fields).
type TaskView struct {
	Task     *nudge.Task
	Comments []Comment
}

// View is task t with its comments.
func View(w *nudge.Workspace, t *nudge.Task) (TaskView, error) {
	f, err := readComments(w, t.ID)
	if err != nil {
		return TaskView{}, err
	}
	cs := f.Comments
	if cs == nil {
		cs = []Comment{}
	}
	return TaskView{Task: t, Comments: cs}, nil
}

// MarshalJSON writes the record with "comments" added at its end.
func (v TaskView) MarshalJSON() ([]byte, error) {
	rec, err := json.Marshal(v.Task)
	if err != nil {
		return nil, err
	}
	cs := v.Comments
	if cs == nil {
		cs = []Comment{}
	}
	com, err := json.Marshal(cs)
	if err != nil {
		return nil, err
	}
	rec = bytes.TrimRight(rec, " \t\r\n")
	if len(rec) < 2 || rec[len(rec)-1] != '}' {
		return nil, errors.New("a task record is not a JSON object")
	}
	out := append([]byte{}, rec[:len(rec)-1]...)
	if len(bytes.TrimSpace(out)) > 1 {
		out = append(out, ',')
	}
	out = append(out, `"comments":`...)
	out = append(out, com...)
	return append(out, '}'), nil
}

// reviewFileName is the review file in a task's log folder.
const reviewFileName = "review.md"

// maxQuotedLines bounds the lines of the result quoted under a comment.
const maxQuotedLines = 20

// WriteFile writes task t's comments as the review file its command is
// given (logs/<id>/review.md) and returns its path; "" (and no file) when
// the task has none.
func WriteFile(ctx context.Context, w *nudge.Workspace, t *nudge.Task) (string, error) {
	p := filepath.Join(w.LogDir(t.ID), reviewFileName)
	f, err := readComments(w, t.ID)
	if err != nil {
		return "", err
	}
	if len(f.Comments) == 0 {
		if err := os.Remove(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return "", err
		}
		return "", nil
	}
	var b strings.Builder
	fmt.Fprintf(&b, "# Review comments on task %s\n\n", t.ID)
	fmt.Fprintf(&b, "%d comment(s) on the task's last result; lines are those of each file as the result has it.\n", len(f.Comments))
	for _, c := range f.Comments {
		fmt.Fprintf(&b, "\n## %s (%s)\n\n", c.Where(), c.ID)
		if q := quoteLines(ctx, w, t, c); q != "" {
			b.WriteString(q)
			b.WriteString("\n")
		}
		b.WriteString(c.Text)
		b.WriteString("\n")
	}
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return "", err
	}
	tmp := p + ".tmp"
	if err := os.WriteFile(tmp, []byte(b.String()), 0o644); err != nil {
		return "", err
	}
	if err := os.Rename(tmp, p); err != nil {
		return "", err
	}
	return p, nil
}

// quoteLines is the commented lines of the path's version in t's result,
// as a quote ("> N | text" a line), "" when there is none to quote (no lines named, a
// path the patch does not add or change, a binary file).
func quoteLines(ctx context.Context, w *nudge.Workspace, t *nudge.Task, c Comment) string {
	if c.Line == nil || c.EndLine == nil {
		return ""
	}
	var blob string
	for _, f := range t.Files {
		if f.Path == c.Path && f.NewBlob != nil {
			blob = *f.NewBlob
		}
	}
	if blob == "" {
		return ""
	}
	data, err := w.Repo.ReadBlob(ctx, blob)
	if err != nil || bytes.IndexByte(data, 0) >= 0 {
		return ""
	}
	lines := strings.SplitAfter(string(data), "\n")
	from, to := *c.Line, *c.EndLine
	if from < 1 || from > len(lines) {
		return ""
	}
	if to > len(lines) {
		to = len(lines)
	}
	if to-from+1 > maxQuotedLines {
		to = from + maxQuotedLines - 1
	}
	var b strings.Builder
	for i := from; i <= to; i++ {
		fmt.Fprintf(&b, "> %d | %s\n", i, strings.TrimRight(lines[i-1], "\r\n"))
	}
	return b.String()
}
