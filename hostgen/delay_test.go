package hostgen

import (
	"math"
	"net/netip"
	"testing"
)

func TestDelayLine(t *testing.T) {
	a := netip.MustParseAddr("10.0.0.1")
	b := netip.MustParseAddr("10.0.0.2")
	c := netip.MustParseAddr("10.0.0.3")
	z := netip.MustParseAddr("10.0.0.4")
	if l := newDelayLine(map[netip.Addr]int64{a: 0, b: -1}); l != nil {
		t.Fatalf("no positive delay: got a line %+v", l)
	}
	l := newDelayLine(map[netip.Addr]int64{a: 4000, b: 2000, c: 4000, z: 0})
	if _, ok := l.arrive(0, &Frame{SrcIP: z}); ok {
		t.Error("a sender without delay got an arrival")
	}
	// frames as the receive loop reads them: (time, sender, psn)
	in := []struct {
		now int64
		src netip.Addr
		psn uint32
	}{
		{0, a, 1}, {100, b, 2}, {200, c, 3}, {2500, b, 4}, {3000, a, 5},
	}
	for _, x := range in {
		ar, ok := l.arrive(x.now, &Frame{SrcIP: x.src, PSN: x.psn})
		if !ok {
			t.Fatalf("sender %v has no delay", x.src)
		}
		l.push(ar)
	}
	// due: psn 1 at 4000, 2 at 2100, 3 at 4200, 4 at 4500, 5 at 7000
	want := []struct {
		psn uint32
		due int64
	}{{2, 2100}, {1, 4000}, {3, 4200}, {4, 4500}, {5, 7000}}
	for _, w := range want {
		cl, due := l.next()
		if cl < 0 || due != w.due {
			t.Fatalf("next = class %d due %d, want psn %d due %d", cl, due, w.psn, w.due)
		}
		if f := l.pop(cl); f.PSN != w.psn {
			t.Fatalf("popped psn %d, want %d", f.PSN, w.psn)
		}
	}
	if cl, due := l.next(); cl != -1 || due != math.MaxInt64 {
		t.Errorf("empty line: next = %d, %d", cl, due)
	}
}
