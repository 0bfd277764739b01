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

// TestCalendarOrder drives the calendar queue as the simulator does (times
// never before the event being handled, near and far, re-arms, cancels and
// self re-arms of the running event) and checks every peek against a sort.
func TestCalendarOrder(t *testing.T) {
	for _, tc := range []struct{ spread, ports int64 }{{1_000, 64}, {1 << 20, 64}, {1 << 34, 64}, {1 << 20, 8192}, {1 << 26, 8192}} {
		spread := tc.spread
		r := rand.New(rand.NewPCG(uint64(spread), uint64(tc.ports)))
		const sources = 200
		var c calendar
		c.init(sources, int(tc.ports))
		want := map[int32]event{}
		var now int64 = 2_000_000_000_000
		for round := 0; round < 30000; round++ {
			src := int32(r.IntN(sources))
			switch r.IntN(5) {
			case 0, 1:
				at := now + r.Int64N(spread)
				c.schedule(src, at)
				want[src] = event{at: at, seq: c.seqc, src: src}
			case 2:
				c.cancel(src)
				delete(want, src)
			default:
				got, ok := c.pop()
				if ok != (len(want) > 0) {
					t.Fatalf("spread %d round %d: peek ok=%v with %d pending", spread, round, ok, len(want))
				}
				if !ok {
					continue
				}
				var all []event
				for _, e := range want {
					all = append(all, e)
				}
				sort.Slice(all, func(i, j int) bool { return all[i].before(&all[j]) })
				if got != all[0] {
					t.Fatalf("spread %d round %d: peeked %+v, want %+v", spread, round, got, all[0])
				}
				now = got.at
				delete(want, got.src)
				if r.IntN(3) == 0 { // the handler re-arms its own source
					at := now + r.Int64N(spread)
					c.schedule(got.src, at)
					want[got.src] = event{at: at, seq: c.seqc, src: got.src}
				}
			}
			if c.len() != len(want) {
				t.Fatalf("spread %d round %d: %d pending, want %d", spread, round, c.len(), len(want))
			}
			for src, e := range want {
				if at, ok := c.pending(src); !ok || at != e.at {
					t.Fatalf("spread %d round %d: source %d pending (%d, %v), want %d", spread, round, src, at, ok, e.at)
				}
			}
		}
	}
}
