package gnn

import (
	"bytes"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"graphcc/control"
	"graphcc/internal/testfabric"
	"graphcc/replay"
	"graphcc/topo"
	"graphcc/trace"
)

func TestFloorGate(t *testing.T) {
	inf := math.Inf(1)
	for _, tc := range []struct {
		qModel, qBase float32
		margin        float64
		want          bool
	}{
		{1, 1, 0, false},                      // the base's own action: no gap
		{1.5, 1, 0, true},                     // any gap departs at margin 0
		{1.5, 1, 0.5, false},                  // a gap equal to the margin stays
		{1.5, 1, 0.49, true},                  // a gap above it departs
		{1, 1, -1e-9, true},                   // a negative margin departs on its own action
		{1e30, -1e30, inf, false},             // +Inf: never
		{-1e30, -1e30, -inf, true},            // -Inf: always
		{float32(math.NaN()), 0, -inf, false}, // a NaN gap never departs
	} {
		if got := Gate(tc.qModel, tc.qBase, tc.margin); got != tc.want {
			t.Errorf("Gate(%g, %g, %g) = %v, want %v", tc.qModel, tc.qBase, tc.margin, got, tc.want)
		}
	}
}

// floorRun simulates testfabric.SmallFlows on f under p (from the
// initial settings ecn) and returns the FCT records and the telemetry
// trace, as bytes.
func floorRun(t *testing.T, f *topo.Fabric, p control.Policy, ecn []control.ECN) []byte {
	t.Helper()
	var tr bytes.Buffer
	res, err := replay.Run(replay.Config{Fabric: f, Flows: testfabric.SmallFlows(t, f), Policy: p, ECN: ecn, Seed: 1, Trace: &tr})
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := trace.WriteFCT(&b, res.FCT); err != nil {
		t.Fatal(err)
	}
	return append(b.Bytes(), tr.Bytes()...)
}

func mustFloor(t *testing.T, g *GraphCC, base control.Policy, start []control.ECN, f *topo.Fabric, margin float64) *Floor {
	t.Helper()
	fl, err := NewFloor(g, base, start, f, UniformGates(margin))
	if err != nil {
		t.Fatal(err)
	}
	return fl
}

// TestFloorBounds: in the simulator a margin of +Inf runs as the base
// alone and a margin of -Inf as the model alone, byte for byte (FCT
// records and telemetry), with a switch-only model and with a host head.
func TestFloorBounds(t *testing.T) {
	f := testfabric.SmallClos(t)
	inf := math.Inf(1)
	hostModel := hostBiased(NewModelShape(hostShape(), rand.New(rand.NewPCG(1, 7))), NumHostActions-1)
	for _, tc := range []struct {
		name string
		m    *Model
	}{{"switch-only", seededModel(1)}, {"host head", hostModel}} {
		t.Run(tc.name, func(t *testing.T) {
			base := floorRun(t, f, control.Static{}, nil)
			model := floorRun(t, f, mustGraphCC(t, tc.m, f, FeatureConfig{}), nil)
			if bytes.Equal(base, model) {
				t.Fatal("the model runs as the base: the test shows nothing")
			}
			if got := floorRun(t, f, mustFloor(t, mustGraphCC(t, tc.m, f, FeatureConfig{}), control.Static{}, nil, f, inf), nil); !bytes.Equal(got, base) {
				t.Error("margin +Inf runs otherwise than the base")
			}
			if got := floorRun(t, f, mustFloor(t, mustGraphCC(t, tc.m, f, FeatureConfig{}), control.Static{}, nil, f, -inf), nil); !bytes.Equal(got, model) {
				t.Error("margin -Inf runs otherwise than the model")
			}
		})
	}
}

// TestFloorDecide: on one step, every agent port gets the model's setting
// exactly where its Q-gap over the base's nearest action exceeds the
// margin, and the base's own setting (not an action) elsewhere; a host
// agent likewise its model action or the constants it started with.
func TestFloorDecide(t *testing.T) {
	f := topoDefault(t)
	tel := &control.Telemetry{Interval: testDt, Ports: make([]control.PortSample, len(f.Ports))}
	r := rand.New(rand.NewPCG(3, 1))
	for i := range tel.Ports {
		tel.Ports[i] = testfabric.Sample(r.Float64(), r.Float64()/10, int64(r.IntN(300000)), f.Ports[i].Rate)
	}
	m := NewModelShape(hostShape(), rand.New(rand.NewPCG(1, 7)))
	probe := mustGraphCC(t, m, f, FeatureConfig{})
	start := control.StaticSettings(f) // Alibaba's, not an action
	probe.Decide(tel, slices.Clone(start))
	gaps := floorGaps(probe, start)
	margin := float64(slices.Sorted(slices.Values(gaps))[len(gaps)/2])

	g := mustGraphCC(t, m, f, FeatureConfig{})
	fl := mustFloor(t, g, control.Static{}, start, f, margin)
	ecn, hosts := slices.Clone(start), make([]control.HostParams, len(f.Ports))
	startHost := control.DefaultHostParams()
	for _, p := range control.HostPorts(f) {
		hosts[p] = startHost
	}
	fl.Decide(tel, ecn)
	fl.DecideHosts(tel, hosts)
	var departed, held int
	for i, p := range g.Agents() {
		want := start[p]
		if gaps[i] > margin {
			want, departed = m.ActionSet.Setting(g.LastActions()[i], f.Ports[p].Rate), departed+1
		} else {
			held++
		}
		if ecn[p] != want || fl.Departed()[i] != (gaps[i] > margin) {
			t.Errorf("port %d (gap %g, margin %g): %+v, want %+v", p, gaps[i], margin, ecn[p], want)
		}
	}
	if departed == 0 || held == 0 {
		t.Errorf("%d ports departed, %d held: the test shows nothing", departed, held)
	}
	for j, p := range g.Hosts() {
		gap := gaps[len(g.Agents())+j]
		want := startHost
		if gap > margin {
			want = m.HostTable.Action(g.LastHostActions()[j])
		}
		if hosts[p] != want {
			t.Errorf("host port %d (gap %g): %+v, want %+v", p, gap, hosts[p], want)
		}
	}
	if a := testing.AllocsPerRun(50, func() { fl.Decide(tel, ecn); fl.DecideHosts(tel, hosts) }); a != 0 {
		t.Errorf("Floor.Decide and DecideHosts: %v allocations", a)
	}
}

// floorGaps returns the Q-gap of g's last Decide over the action nearest
// to base of every agent, then of every host agent over the action
// nearest to the default hosts' constants.
func floorGaps(g *GraphCC, base []control.ECN) []float64 {
	q, na, nh := g.Inference().Q(), g.m.Actions, g.m.HostActions
	var out []float64
	for i, p := range g.Agents() {
		b := g.m.ActionSet.Nearest(base[p], g.rates[i])
		out = append(out, float64(q[i*na+g.LastActions()[i]])-float64(q[i*na+b]))
	}
	hq := q[len(g.Agents())*na:]
	b := g.m.HostTable.Nearest(control.DefaultHostParams())
	for j := range g.Hosts() {
		out = append(out, float64(hq[j*nh+g.LastHostActions()[j]])-float64(hq[j*nh+b]))
	}
	return out
}
