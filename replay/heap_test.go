package replay

import (
	"math/rand/v2"
	"sort"
	"testing"
)

// TestEventQueueOrder drives the heap with random schedules, re-arms and
// cancels and checks it pops in (time, scheduling order) against a sort.
func TestEventQueueOrder(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	const sources = 300
	var q eventQueue
	q.init(sources)
	want := map[int32]event{} // pending per source
	for round := 0; round < 20000; round++ {
		src := int32(r.IntN(sources))
		switch r.IntN(4) {
		case 0, 1:
			at := int64(r.IntN(1000))
			q.schedule(src, at)
			want[src] = event{at: at, seq: q.seq, src: src}
		case 2:
			q.cancel(src)
			delete(want, src)
		case 3:
			if q.len() == 0 {
				continue
			}
			var all []event
			for _, e := range want {
				all = append(all, e)
			}
			sort.Slice(all, func(i, j int) bool { return all[i].before(&all[j]) })
			got := q.pop()
			if got != all[0] {
				t.Fatalf("round %d: popped %+v, want %+v", round, got, all[0])
			}
			delete(want, got.src)
		}
		if q.len() != len(want) {
			t.Fatalf("round %d: %d pending, want %d", round, q.len(), len(want))
		}
		for src, e := range want {
			if at, ok := q.pending(src); !ok || at != e.at {
				t.Fatalf("round %d: source %d pending (%d, %v), want %d", round, src, at, ok, e.at)
			}
		}
	}
}
