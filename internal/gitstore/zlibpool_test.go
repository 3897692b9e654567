package gitstore

import (
	"fmt"
	"runtime"
	"testing"
)

// Loose objects share one compressor: twenty small objects allocate far
// less than the megabyte or so a new zlib writer takes each.
func TestLooseObjectsReuseCompressor(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector makes sync.Pool drop what is put back; measured without it")
	}
	r := newTestStore(t)
	writeLooseObject(r.CommonDir+"/objects", "blob", r.ObjectID("blob", []byte("warm\n")), []byte("warm\n"))
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	for i := 0; i < 20; i++ {
		data := []byte(fmt.Sprintf("object %d\n", i))
		if err := writeLooseObject(r.CommonDir+"/objects", "blob", r.ObjectID("blob", data), data); err != nil {
			t.Fatal(err)
		}
	}
	runtime.ReadMemStats(&after)
	if n := after.TotalAlloc - before.TotalAlloc; n > 4<<20 {
		t.Errorf("20 small loose objects allocated %d bytes", n)
	}
}
