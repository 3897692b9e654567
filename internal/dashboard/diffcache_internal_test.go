package dashboard

import (
	"fmt"
	"testing"
)

// The cache holds at most diffCacheEntries answers and diffCacheBytes
// bytes, dropping the oldest first; an answer put again replaces the old.
func TestDiffCacheBounds(t *testing.T) {
	var c diffCache
	for i := range diffCacheEntries + 3 {
		c.put(fmt.Sprint(i), []byte{byte(i)})
	}
	if _, ok := c.get("0"); ok {
		t.Fatal("the oldest answer is still kept past the entry bound")
	}
	if b, ok := c.get(fmt.Sprint(diffCacheEntries + 2)); !ok || b[0] != byte(diffCacheEntries+2) {
		t.Fatalf("the newest answer: %v %v", b, ok)
	}
	if len(c.entries) != diffCacheEntries {
		t.Fatalf("%d entries kept, want %d", len(c.entries), diffCacheEntries)
	}
	c.put("big", make([]byte, diffCacheBytes-4))
	if _, ok := c.get("big"); !ok || c.size > diffCacheBytes || len(c.entries) != 5 {
		t.Fatalf("after a large answer: kept %v, %d entries, %d bytes", ok, len(c.entries), c.size)
	}
	c.put("big", []byte("x"))
	if b, _ := c.get("big"); string(b) != "x" || c.size != 5 || len(c.entries) != 5 {
		t.Fatalf("an answer put again: %q, %d bytes", b, c.size)
	}
	c.put("huge", make([]byte, diffCacheBytes+1))
	if _, ok := c.get("huge"); ok {
		t.Fatal("an answer over the byte bound is kept")
	}
}
