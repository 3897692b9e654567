package oplog

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"sync"

	"github.com/nudgethis/git-nudge/internal/git"
)

// A log commit never changes (its id is its content), so the chain from
// a commit down to its root, and the record a commit holds, are the same
// whenever they are read: a process that reads the log again (the
// dashboard) keeps them, and reads only the commits appended since, in
// this process when they are loose. Shared by every repository of the
// process, since equal ids are equal content.
var readCache struct {
	sync.Mutex
	chains  map[string][]git.ChainCommit // tip -> its first-parent chain, newest first
	records map[string]cachedRecord      // commit -> its record
	size    int                          // commits held in chains
}

// cachedRecord is a commit's record as decoded, or the error decoding it.
type cachedRecord struct {
	op  Op
	err error
}

// readCacheMax bounds what the cache holds (commits, in chains and as
// records); past it the cache starts again empty.
const readCacheMax = 50000

func cachedChain(tip string) ([]git.ChainCommit, bool) {
	readCache.Lock()
	defer readCache.Unlock()
	c, ok := readCache.chains[tip]
	return c, ok
}

func storeChain(tip string, chain []git.ChainCommit) {
	readCache.Lock()
	defer readCache.Unlock()
	if readCache.chains == nil || readCache.size+len(chain) > readCacheMax {
		readCache.chains = map[string][]git.ChainCommit{}
		readCache.size = 0
	}
	if _, ok := readCache.chains[tip]; !ok {
		readCache.chains[tip] = chain
		readCache.size += len(chain)
	}
}

// recordAt decodes the record of log commit c (kept for the next read).
// The Op returned is the caller's own; its slices are shared and must not
// be changed in place.
func recordAt(c git.ChainCommit) (*Op, error) {
	readCache.Lock()
	r, ok := readCache.records[c.ID]
	readCache.Unlock()
	if !ok {
		r.err = json.Unmarshal(recordOf(c.Message), &r.op)
		readCache.Lock()
		if readCache.records == nil || len(readCache.records) >= readCacheMax {
			readCache.records = map[string]cachedRecord{}
		}
		readCache.records[c.ID] = r
		readCache.Unlock()
	}
	if r.err != nil {
		return nil, r.err
	}
	op := r.op
	return &op, nil
}

// chainsOf is the first-parent chains from tips (commit ids), each
// newest first, one after the other: cached chains as they are, new
// commits read here when loose until a cached chain is met, and what is
// left in one git process.
func (l *Log) chainsOf(ctx context.Context, tips []string) ([]git.ChainCommit, error) {
	chains := make([][]git.ChainCommit, len(tips))
	var ask []string
	asked := map[string]bool{}
	for i, tip := range tips {
		if c, ok := l.chainHere(tip); ok {
			chains[i] = c
			continue
		}
		if !asked[tip] {
			asked[tip] = true
			ask = append(ask, tip)
		}
	}
	if len(ask) > 0 {
		read, err := l.Repo.ReadChains(ctx, ask)
		if err != nil {
			return nil, err
		}
		byID := make(map[string]*git.ChainCommit, len(read))
		for i := range read {
			byID[read[i].ID] = &read[i]
		}
		for i, tip := range tips {
			if chains[i] != nil || !asked[tip] {
				continue
			}
			var chain []git.ChainCommit
			for c := byID[tip]; c != nil; {
				chain = append(chain, *c)
				if len(c.Parents) == 0 {
					break
				}
				c = byID[c.Parents[0]]
			}
			storeChain(tip, chain)
			chains[i] = chain
		}
	}
	var out []git.ChainCommit
	for _, c := range chains {
		out = append(out, c...)
	}
	return out, nil
}

// chainHere is tip's chain from the cache, reading in this process the
// loose commits above a cached chain; false when git must read it.
func (l *Log) chainHere(tip string) ([]git.ChainCommit, bool) {
	if c, ok := cachedChain(tip); ok {
		return c, true
	}
	if !l.Repo.InProcess() || l.Repo.MayReplace() {
		return nil, false
	}
	var fresh []git.ChainCommit
	// One walk: the commits of a packed chain are deltas of each other,
	// each entry of a chain inflated once.
	walk := l.Repo.NewObjectWalk()
	for c := tip; len(fresh) < 2*segmentOps; {
		typ, data, ok := walk.Read(c)
		if !ok || typ != "commit" {
			return nil, false
		}
		cc := chainCommit(c, data)
		fresh = append(fresh, cc)
		if len(cc.Parents) == 0 {
			storeChain(tip, fresh)
			return fresh, true
		}
		if below, ok := cachedChain(cc.Parents[0]); ok {
			chain := append(fresh, below...)
			storeChain(tip, chain)
			return chain, true
		}
		c = cc.Parents[0]
	}
	return nil, false
}

// chainCommit parses a commit object as git log's record of it.
func chainCommit(id string, data []byte) git.ChainCommit {
	head, body, _ := bytes.Cut(data, []byte("\n\n"))
	c := git.ChainCommit{ID: id, Message: strings.TrimRight(string(body), "\n")}
	for _, line := range strings.Split(string(head), "\n") {
		if t, ok := strings.CutPrefix(line, "tree "); ok {
			c.Tree = t
		} else if p, ok := strings.CutPrefix(line, "parent "); ok {
			c.Parents = append(c.Parents, p)
		}
	}
	return c
}
