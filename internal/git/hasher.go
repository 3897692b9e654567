package git

import (
	"context"
	"fmt"
	"strings"
)

// Hasher is HashFiles served by one `git hash-object --stdin-paths` kept
// running between calls: a command that hashes the same files several
// times (apply and undo check them, check them again right before writing
// and verify them after) starts one git process instead of one per look.
// git answers each path as it reads it (hash-object flushes after every
// id), and reads every file afresh, so an answer is as current as a new
// process's. A Hasher is used by one goroutine at a time; Close ends it.
type Hasher struct {
	r *Repo
	p *proc
}

// NewHasher returns a Hasher for r; its git process starts on first use.
func (r *Repo) NewHasher() *Hasher { return &Hasher{r: r} }

// HashFiles is Repo.HashFiles through the kept process. After an error
// (git stopped at a file it could not read, say) the process is gone and
// the next call starts another.
func (h *Hasher) HashFiles(ctx context.Context, paths []string) ([]string, error) {
	if len(paths) == 0 {
		return nil, nil
	}
	if h.p == nil {
		p, err := h.r.startProc(ctx, "hash-object", "--stdin-paths")
		if err != nil {
			return nil, err
		}
		h.p = p
	}
	p := h.p
	// Paths go in from their own goroutine while the ids are read here:
	// a pipe holds only so much of either.
	wrote := make(chan error, 1)
	go func() {
		var in strings.Builder
		for _, q := range paths {
			in.WriteString(quoteStdinPath(q))
			in.WriteByte('\n')
		}
		_, err := p.in.Write([]byte(in.String()))
		wrote <- err
	}()
	ids := make([]string, len(paths))
	var err error
	for i := range paths {
		line, rerr := p.out.ReadString('\n')
		if rerr != nil {
			err = rerr
			break
		}
		ids[i] = strings.TrimSuffix(line, "\n")
		if !h.r.validID(ids[i]) {
			err = fmt.Errorf("git hash-object returned a malformed id %q", ids[i])
			break
		}
	}
	if err != nil {
		// The process is ended (killed, in case it still runs and waits
		// for room to write), the writer then stops, and git's own
		// complaint, if it made one, is the error.
		h.p = nil
		if p.cmd.Process != nil {
			_ = p.cmd.Process.Kill()
		}
		<-wrote
		if ferr := p.fail(err); ExitCode(ferr) > 0 {
			return nil, ferr
		}
		return nil, gitError(p.args, p.stderr.String(), err)
	}
	if werr := <-wrote; werr != nil {
		h.p = nil
		return nil, p.fail(werr)
	}
	return ids, nil
}

// Close ends the git process, if one was started.
func (h *Hasher) Close() error {
	if h == nil || h.p == nil {
		return nil
	}
	err := h.p.close()
	h.p = nil
	return err
}
