package guard

import (
	"context"
	"fmt"

	"github.com/nudgethis/git-nudge/internal/git"
	"github.com/nudgethis/git-nudge/internal/pathenc"
)

// maxTreeReasons bounds the malformed-tree reasons one refusal lists.
const maxTreeReasons = 20

// MalformedResult checks the trees of result (task id's result commit)
// that differ from those of snapshot
// with git fsck's tree rules (duplicate entries, a file and a
// folder of one name, names such as "", ".", "..", ".git" in any spelling
// or holding a slash, bad modes, entries out of order) and returns one
// sentence per problem found. A result a task crafted that way would be
// caught only part-way through writing its files; apply refuses it before
// anything is written. The snapshot's own trees came from git itself, and
// a folder identical to the snapshot's holds nothing apply writes.
func MalformedResult(ctx context.Context, r *git.Repo, id, result, snapshot string) ([]string, error) {
	problems, err := r.CheckTree(ctx, result+"^{tree}", snapshot+"^{tree}")
	if err != nil {
		return nil, fmt.Errorf("checking the result of %s: %w", id, err)
	}
	var out []string
	for i, p := range problems {
		if i == maxTreeReasons {
			out = append(out, fmt.Sprintf("and %d more problems in the result's trees", len(problems)-i))
			break
		}
		out = append(out, fmt.Sprintf("the result of %s is malformed: %s (git fsck: %s)", id, treeProblem(p), p.Code))
	}
	return out, nil
}

// treeProblem says in words what is wrong with one entry of a tree.
func treeProblem(p git.TreeProblem) string {
	where := "the top folder"
	if p.Folder != "" {
		where = "folder " + pathenc.Quote(p.Folder)
	}
	name := fmt.Sprintf("%q", p.Name)
	switch p.Code {
	case "duplicateEntries":
		return fmt.Sprintf("%s holds two entries named %s (the same name twice, or a file and a folder)", where, name)
	case "treeNotSorted":
		return fmt.Sprintf("the entries of %s are not in git's order (at %s)", where, name)
	case "emptyName":
		return where + " holds an entry with an empty name"
	case "hasDot", "hasDotdot":
		return fmt.Sprintf("%s holds an entry named %s", where, name)
	case "fullPathname":
		return fmt.Sprintf("%s holds an entry whose name %s contains a slash", where, name)
	case "hasDotgit":
		return fmt.Sprintf("%s holds an entry named %s, a spelling of .git", where, name)
	case "badFilemode", "zeroPaddedFilemode":
		return fmt.Sprintf("the entry %s of %s has the mode %s, which git does not write", name, where, p.Mode)
	case "nullSha1":
		return fmt.Sprintf("the entry %s of %s points at the null object id", name, where)
	case "missingTree":
		return where + " is missing from the repository's objects"
	case "badTree":
		if p.Mode == "corrupt" {
			return where + " is a tree object that cannot be read (corrupt)"
		}
		return fmt.Sprintf("%s is not a well-formed folder (the object is a %s)", where, p.Mode)
	}
	return fmt.Sprintf("the entry %s of %s is not valid", name, where)
}
