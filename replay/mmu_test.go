package replay

import (
	"math"
	"strings"
	"testing"

	"graphcc/topo"
	"graphcc/trace"
)

func TestHeadroom(t *testing.T) {
	tests := []struct {
		name        string
		rate, delay int64
		rtts        int64
		want        int64
		ok          bool
	}{
		{"25G 1us", 25 * topo.Gbps, topo.Microsecond, 3, 9_375, true},
		{"100G 1us", 100 * topo.Gbps, topo.Microsecond, 3, 37_500, true},
		{"delay in whole ns", 100 * topo.Gbps, 1_999, 3, 36, true},
		{"no headroom", 100 * topo.Gbps, topo.Microsecond, 0, 0, true},
		// rate*delay in ns is 1e19, past int64: the old formula wrapped to
		// a negative headroom here.
		{"100G 100ms", 100 * topo.Gbps, 100 * topo.Millisecond, 3, 3_750_000_000, true},
		{"400G 25ms", 400 * topo.Gbps, 25 * topo.Millisecond, 3, 3_750_000_000, true},
		{"quotient past int64", math.MaxInt64, math.MaxInt64, 1, 0, false},
		{"times rtts past int64", 8e18, 3 * topo.Second, 4, 0, false},
		{"just fits", 8e18, 3 * topo.Second, 3, 9e18, true},
	}
	for _, tt := range tests {
		got, ok := headroom(tt.rate, tt.delay, tt.rtts)
		if got != tt.want || ok != tt.ok {
			t.Errorf("%s: headroom(%d, %d, %d) = %d, %v; want %d, %v", tt.name, tt.rate, tt.delay, tt.rtts, got, ok, tt.want, tt.ok)
		}
	}
}

// TestHeadroomLongLinks builds the simulator on a Clos with 100 ms links,
// whose headroom overflowed int64 before it was computed in 128 bits.
func TestHeadroomLongLinks(t *testing.T) {
	cfg := topo.DefaultClos()
	cfg.FabricRate = 100 * topo.Gbps
	cfg.LinkDelay = 100 * topo.Millisecond
	f, err := topo.Clos(cfg)
	if err != nil {
		t.Fatal(err)
	}
	s, err := New(Config{Fabric: f, Flows: []trace.Flow{{Src: host(t, f, "h0"), Dst: host(t, f, "h23"), Size: 1000, Start: t0}}})
	if err != nil {
		t.Fatal(err)
	}
	for i := range s.ports {
		pt := &s.ports[i]
		if !pt.dstSwitch {
			continue
		}
		want, _ := headroom(pt.rate, pt.delay, 3)
		if pt.headroom != want || pt.headroom <= 0 {
			t.Errorf("port %d (%d bps, %d ps): headroom %d, want %d", i, pt.rate, pt.delay, pt.headroom, want)
		}
	}

	// Such links need more headroom than the 32 MiB buffers hold: every
	// switch is named in a warning, as the default Clos's are not.
	if len(s.warnings) != len(f.Switches()) || !strings.Contains(s.warnings[0], "switch leaf0: the PFC headroom of its ports") {
		t.Errorf("warnings %q, want one per switch", s.warnings)
	}
	def, err := topo.Clos(topo.DefaultClos())
	if err != nil {
		t.Fatal(err)
	}
	r, err := Run(Config{Fabric: def, Flows: []trace.Flow{{Src: host(t, def, "h0"), Dst: host(t, def, "h23"), Size: 1000, Start: t0}}})
	if err != nil || len(r.Warnings) != 0 {
		t.Errorf("default Clos: warnings %q, error %v", r.Warnings, err)
	}

	cfg.FabricRate = 8e18
	cfg.LinkDelay = 10 * topo.Second
	if f, err = topo.Clos(cfg); err != nil {
		t.Fatal(err)
	}
	_, err = New(Config{Fabric: f, Flows: []trace.Flow{{Src: host(t, f, "h0"), Dst: host(t, f, "h23"), Size: 1000, Start: t0}}})
	if err == nil || !strings.Contains(err.Error(), "headroom") {
		t.Errorf("a headroom past int64 gave error %v, want one naming the headroom", err)
	} else {
		t.Log(err)
	}
}

// checkMMU checks the shared buffer's books: a switch's shared bytes are the
// sum of its ingress ports' shared use, no port's headroom use is negative
// or over its headroom, and every queue's byte and packet counts are its
// contents.
func (s *Sim) checkMMU(t *testing.T) {
	t.Helper()
	for _, n := range s.f.Switches() {
		sw := &s.sws[n]
		var sum int64
		for _, p := range s.f.Out(n) {
			in := &s.ports[topo.PortID(p).Reverse()]
			sum += s.sharedUsed(in)
			if in.hdrmBytes < 0 || in.ingBytes < 0 {
				t.Fatalf("t=%d port %d: ingress %d B, headroom %d B", s.now, p, in.ingBytes, in.hdrmBytes)
			}
			if in.hdrmBytes > in.headroom {
				t.Fatalf("t=%d port %d: headroom use %d B over its %d B", s.now, p, in.hdrmBytes, in.headroom)
			}
		}
		if sum != sw.shared {
			t.Fatalf("t=%d switch %d: shared %d B, its ports' shared use %d B", s.now, n, sw.shared, sum)
		}
	}
	for i := range s.ports {
		pt := &s.ports[i]
		var b, k int64
		for j := pt.q.head; j >= 0; j = s.pkts[j].next {
			b += int64(s.pkts[j].size)
			k++
		}
		if b != pt.qBytes || (pt.srcSwitch && k != pt.qPkts) {
			t.Fatalf("t=%d port %d: counts %d B, %d packets; holds %d B, %d packets", s.now, i, pt.qBytes, pt.qPkts, b, k)
		}
	}
}

// TestMMUAccounting runs a PFC storm (16 x 200 KB into one host through
// 400 KB buffers, over background traffic), with the window and without,
// checking the buffer's books every 50 events and that everything is
// released, unpaused and undropped at the end.
func TestMMUAccounting(t *testing.T) {
	cfg := topo.DefaultClos()
	cfg.Buffer = 400_000
	f, err := topo.Clos(cfg)
	if err != nil {
		t.Fatal(err)
	}
	flows := append(incast(t, f, 16, 200_000), genFlows(t, f, 3, 2*topo.Millisecond)...)
	for _, win := range []int64{0, -1} {
		p := DefaultParams()
		p.Window = win
		s, err := New(Config{Fabric: f, Flows: flows, Params: p, Seed: 1})
		if err != nil {
			t.Fatal(err)
		}
		for k := 1; s.Step(); k++ {
			if k%50 == 0 {
				s.checkMMU(t)
			}
		}
		s.checkMMU(t)
		r, err := s.Result()
		if err != nil {
			t.Fatal(err)
		}
		if len(r.FCT) != len(flows) || r.Counters.Drops != 0 {
			t.Errorf("window %d: %d of %d flows finished, %d drops", win, len(r.FCT), len(flows), r.Counters.Drops)
		}
		if r.Counters.PFCPauses == 0 {
			t.Errorf("window %d: no PAUSE: the storm did not happen", win)
		}
		for i := range s.ports {
			pt := &s.ports[i]
			if pt.paused || pt.pausing || pt.ingBytes != 0 || pt.hdrmBytes != 0 {
				t.Errorf("window %d: port %d left paused %v, pausing %v, %d B in ingress, %d B in headroom", win, i, pt.paused, pt.pausing, pt.ingBytes, pt.hdrmBytes)
			}
		}
		for _, n := range f.Switches() {
			if s.sws[n].shared != 0 {
				t.Errorf("window %d: switch %d left %d shared bytes", win, n, s.sws[n].shared)
			}
		}
	}
}
