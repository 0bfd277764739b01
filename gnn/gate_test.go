package gnn

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"graphcc/control"
	"graphcc/internal/testfabric"
	"graphcc/topo"
)

// gateStep runs one Decide and DecideHosts of fl at now, with the link of
// port down (if not -1) reported down, from the settings start and the
// hosts' default constants, and returns how many switch ports and hosts
// took the model's choice; it fails the test where Departed disagrees
// with the settings written.
func gateStep(t *testing.T, fl *Floor, tel *control.Telemetry, now int64, down int, start []control.ECN) (ports, hosts int) {
	t.Helper()
	tel.Now = now
	for i := range tel.Ports {
		tel.Ports[i].LinkDown = i == down
	}
	ecn, hp := slices.Clone(start), make([]control.HostParams, len(start))
	def := control.DefaultHostParams()
	g := fl.GraphCC()
	for _, p := range g.Hosts() {
		hp[p] = def
	}
	fl.Decide(tel, ecn)
	fl.DecideHosts(tel, hp)
	dep := fl.Departed()
	for i, p := range g.Agents() {
		if dep[i] {
			ports++
		} else if ecn[p] != start[p] {
			t.Errorf("at %d ps: port %d held but set %+v, not the base's %+v", now, p, ecn[p], start[p])
		}
	}
	for j, p := range g.Hosts() {
		if dep[len(g.Agents())+j] {
			hosts++
		} else if hp[p] != def {
			t.Errorf("at %d ps: host port %d held but set %+v", now, p, hp[p])
		}
	}
	return ports, hosts
}

// gateFixture returns a fabric, its telemetry of random samples, a model
// with a host head and the static settings (not actions).
func gateFixture(t *testing.T) (*topo.Fabric, *control.Telemetry, *Model, []control.ECN) {
	f := topoDefault(t)
	tel := &control.Telemetry{Interval: testDt, Ports: make([]control.PortSample, len(f.Ports))}
	r := rand.New(rand.NewPCG(3, 1))
	for i := range tel.Ports {
		tel.Ports[i] = testfabric.Sample(r.Float64(), r.Float64()/10, int64(r.IntN(300000)), f.Ports[i].Rate)
	}
	return f, tel, NewModelShape(hostShape(), rand.New(rand.NewPCG(1, 7))), control.StaticSettings(f)
}

// TestFloorHostMargin: the switch ports and the host agents are gated by
// margins of their own.
func TestFloorHostMargin(t *testing.T) {
	f, tel, m, start := gateFixture(t)
	inf := math.Inf(1)
	for _, gs := range []FloorGates{{Margin: -inf, HostMargin: inf}, {Margin: inf, HostMargin: -inf}} {
		fl, err := NewFloor(mustGraphCC(t, m, f, FeatureConfig{}), control.Static{}, start, f, gs)
		if err != nil {
			t.Fatal(err)
		}
		g := fl.GraphCC()
		ports, hosts := gateStep(t, fl, tel, testDt, -1, start)
		wantPorts, wantHosts := 0, 0
		if gs.Margin < 0 {
			wantPorts = len(g.Agents())
		} else {
			wantHosts = len(g.Hosts())
		}
		if ports != wantPorts || hosts != wantHosts {
			t.Errorf("margins %g/%g: %d ports and %d hosts departed, want %d and %d", gs.Margin, gs.HostMargin, ports, hosts, wantPorts, wantHosts)
		}
	}
}

// TestFloorLinkHold: with HoldLinks every port and host stays on the base
// while a port reports its link down and for LinkHold after, then departs
// again; without it a link down changes nothing; Reset forgets a hold.
func TestFloorLinkHold(t *testing.T) {
	f, tel, m, start := gateFixture(t)
	inf := math.Inf(1)
	gs := FloorGates{Margin: -inf, HostMargin: -inf, HoldLinks: true, LinkHold: 3 * testDt}
	fl, err := NewFloor(mustGraphCC(t, m, f, FeatureConfig{}), control.Static{}, start, f, gs)
	if err != nil {
		t.Fatal(err)
	}
	g := fl.GraphCC()
	all := len(g.Agents()) + len(g.Hosts())
	down := int(g.Agents()[0])
	for _, st := range []struct {
		now  int64
		down int
		held bool
	}{
		{testDt, -1, false},
		{2 * testDt, down, true},
		{3 * testDt, -1, true}, // held until 2+3 intervals
		{4 * testDt, -1, true},
		{5 * testDt, -1, false},
	} {
		ports, hosts := gateStep(t, fl, tel, st.now, st.down, start)
		if want := all; st.held {
			want = 0
			if ports+hosts != want {
				t.Errorf("at %d ps: %d ports and hosts departed, want none (held)", st.now, ports+hosts)
			}
		} else if ports+hosts != want {
			t.Errorf("at %d ps: %d of %d ports and hosts departed, want all", st.now, ports+hosts, want)
		}
	}
	gateStep(t, fl, tel, 6*testDt, down, start)
	fl.Reset()
	if ports, hosts := gateStep(t, fl, tel, testDt, -1, start); ports+hosts != all {
		t.Errorf("after Reset: %d of %d departed, want all (the hold forgotten)", ports+hosts, all)
	}
	gs.HoldLinks = false
	free, err := NewFloor(mustGraphCC(t, m, f, FeatureConfig{}), control.Static{}, start, f, gs)
	if err != nil {
		t.Fatal(err)
	}
	if ports, hosts := gateStep(t, free, tel, testDt, down, start); ports+hosts != all {
		t.Errorf("without HoldLinks, a link down: %d of %d departed, want all", ports+hosts, all)
	}
	if _, err := NewFloor(mustGraphCC(t, m, f, FeatureConfig{}), control.Static{}, start, f, FloorGates{HostMargin: math.NaN()}); err == nil {
		t.Error("a NaN host margin accepted")
	}
}
