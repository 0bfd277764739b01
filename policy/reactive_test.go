package policy

import (
	"strings"
	"testing"

	"graphcc/control"
	"graphcc/internal/testfabric"
	"graphcc/scenario"
	"graphcc/topo"
)

func TestReactivePolicy(t *testing.T) {
	f := testfabric.Clos(t)
	calm := control.ECN{KMin: 32_000, KMax: 128_000, PMax: 0.5}
	busy := control.ECN{KMin: 2_000, KMax: 16_000, PMax: 1}
	pol, initial, err := Reactive(8_000, calm, busy)(f, scenario.Scenario{}, 1)
	if err != nil {
		t.Fatal(err)
	}
	calmAll, busyAll := ScaledECN(f, calm), ScaledECN(f, busy)
	for i := range f.Ports {
		if initial[i] != calmAll[i] {
			t.Fatalf("port %d starts at %v, want %v", i, initial[i], calmAll[i])
		}
	}
	// A queue of depth d packets, as every data packet of the interval met it.
	sample := func(d int64) control.PortSample {
		var s control.PortSample
		for range 5 {
			s.EnqHist.Add(d)
		}
		return s
	}
	s12, s4 := sample(12), sample(4)
	if q := s12.QueueFeature(); q < 8_000 {
		t.Fatalf("12 packets give a queue feature of %g B: pick another depth", q)
	}
	if q := s4.QueueFeature(); q >= 8_000 {
		t.Fatalf("4 packets give a queue feature of %g B: pick another depth", q)
	}
	tel := &control.Telemetry{Interval: control.DefaultInterval, Ports: make([]control.PortSample, len(f.Ports))}
	var down, up, nic topo.PortID = -1, -1, -1 // a 25G leaf-to-host, a 100G leaf-to-spine, a host's NIC
	for i, p := range f.Ports {
		switch {
		case !f.Nodes[p.Src].Switch:
			nic = topo.PortID(i)
		case !f.Nodes[p.Dst].Switch:
			down = topo.PortID(i)
		default:
			up = topo.PortID(i)
		}
	}
	if f.Ports[up].Rate != 4*f.Ports[down].Rate {
		t.Fatalf("rates %d and %d: the test wants a 4:1 fabric", f.Ports[up].Rate, f.Ports[down].Rate)
	}
	tests := []struct {
		name  string
		port  topo.PortID
		depth int64 // packets
		want  []control.ECN
	}{
		{"empty 25G port", down, 0, calmAll},
		{"25G port below 8 KB", down, 4, calmAll},
		{"25G port above 8 KB", down, 12, busyAll},
		{"100G port above 8 KB but below 32 KB", up, 16, calmAll},
		{"100G port above 32 KB", up, 48, busyAll},
		{"host NIC", nic, 1000, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			clear(tel.Ports)
			tel.Ports[tt.port] = sample(tt.depth)
			ecn := control.StaticSettings(f)
			pol.Decide(tel, ecn)
			for i, p := range f.Ports {
				want := calmAll[i]
				switch {
				case !f.Nodes[p.Src].Switch:
					want = control.Alibaba(p.Rate) // untouched
				case topo.PortID(i) == tt.port && tt.want != nil:
					want = tt.want[i]
				}
				if ecn[i] != want {
					t.Errorf("port %d (queue %.0f B): %v, want %v", i, tel.Ports[i].QueueFeature(), ecn[i], want)
				}
			}
		})
	}

	for _, bad := range []struct {
		q          float64
		calm, busy control.ECN
		want       string
	}{
		{-1, calm, busy, "queue threshold -1 bytes"},
		{8_000, control.ECN{KMin: 5, KMax: 1, PMax: 0.5}, busy, "reactive: "},
		{8_000, calm, control.ECN{KMin: 1, KMax: 5, PMax: 2}, "reactive: "},
	} {
		if _, _, err := Reactive(bad.q, bad.calm, bad.busy)(f, scenario.Scenario{}, 1); err == nil || !strings.Contains(err.Error(), bad.want) {
			t.Errorf("Reactive(%g, %v, %v): error %v, want %q", bad.q, bad.calm, bad.busy, err, bad.want)
		}
	}
}
