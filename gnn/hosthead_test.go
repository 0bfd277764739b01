package gnn

import (
	"bytes"
	"errors"
	"graphcc/internal/testfabric"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"testing"

	"graphcc/control"
	"graphcc/dcqcn"
	"graphcc/replay"
	"graphcc/topo"
	"graphcc/trace"
)

// hostShape is the default shape with a host head.
func hostShape() Shape {
	s := DefaultShape()
	s.HostActions = NumHostActions
	return s
}

func TestHostActionTable(t *testing.T) {
	seen := map[control.HostParams]int{}
	for a := range NumHostActions {
		h := HostAction(a)
		if err := h.Validate(); err != nil {
			t.Errorf("host action %d %+v: %v", a, h, err)
		}
		if b, dup := seen[h]; dup {
			t.Errorf("host actions %d and %d are both %+v", b, a, h)
		}
		seen[h] = a
		if hostActionTable[a] != h {
			t.Errorf("hostActionTable[%d] = %+v, want %+v", a, hostActionTable[a], h)
		}
	}
	// HPCC's preset and the best fixed joint constant are actions 0 and 15.
	if got := HostAction(0); got != control.DefaultHostParams() {
		t.Errorf("host action 0 = %+v, want HPCC's preset %+v", got, control.DefaultHostParams())
	}
	us, mb := dcqcn.Microsecond, dcqcn.Mbps
	best := control.HostParams{IncreaseInterval: 55 * us, AlphaInterval: 55 * us, DecreaseInterval: 2 * us, AI: 20 * mb, HAI: 25 * mb}
	if got := HostAction(NumHostActions - 1); got != best {
		t.Errorf("host action %d = %+v, want the best joint constant %+v", NumHostActions-1, got, best)
	}
	// The table id names every level.
	var levels []string
	for _, v := range HostIncreaseUS {
		levels = append(levels, strconv.FormatInt(v, 10))
	}
	for _, v := range HostAlphaUS {
		levels = append(levels, strconv.FormatInt(v, 10))
	}
	for _, v := range HostAIMbps {
		levels = append(levels, strconv.FormatInt(v, 10))
	}
	for _, v := range HostDecHAI {
		levels = append(levels, strconv.FormatInt(v[0], 10)+"us,"+strconv.FormatInt(v[1], 10)+"Mbps")
	}
	want := "timer=" + strings.Join(levels[0:2], ",") + "us alpha=" + strings.Join(levels[2:4], ",") + "us ai=" +
		strings.Join(levels[4:6], ",") + "Mbps dec,hai=" + strings.Join(levels[6:8], ";")
	if !strings.Contains(HostTableID, want) {
		t.Errorf("HostTableID %q does not describe the table (%q)", HostTableID, want)
	}
	for _, a := range []int{-1, NumHostActions} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("HostAction(%d) did not panic", a)
				}
			}()
			HostAction(a)
		}()
	}
}

func TestModelFileHostHead(t *testing.T) {
	m := NewModelShape(hostShape(), nnNewRand(5))
	b, err := m.File(ActionTableID, nnTestMeta()).Marshal()
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(b, []byte(`"host_actions":16,"host_table":"`+HostTableID+`"`)) {
		t.Errorf("header lacks the host head: %s", b[len(FileMagic)+8:len(FileMagic)+8+nnHeaderLen(b)])
	}
	f, err := Unmarshal(b, "hosts", GraphCCExpect())
	if err != nil {
		t.Fatal(err)
	}
	m2, err := f.Model()
	if err != nil {
		t.Fatal(err)
	}
	if m2.Shape != m.Shape || !slices.Equal(m2.Params, m.Params) || m2.HostOut != m.HostOut {
		t.Fatalf("round trip: shape %+v, want %+v", m2.Shape, m.Shape)
	}
	b2, _ := m2.File(ActionTableID, nnTestMeta()).Marshal()
	if !bytes.Equal(b, b2) {
		t.Error("a host-head model's file does not round-trip to the same bytes")
	}
	// Without a host head the header has neither field (older files keep
	// their bytes) and the model reads back without one.
	plain := NewModel(nnNewRand(5))
	pb, _ := plain.File(ActionTableID, nil).Marshal()
	if bytes.Contains(pb, []byte("host_")) {
		t.Error("a model without a host head records host fields")
	}
	if pf, err := Unmarshal(pb, "plain", GraphCCExpect()); err != nil || pf.HostActions != 0 {
		t.Errorf("plain model: host actions %v (%v)", pf, err)
	}
	// The shared weights come first: the host head's shape has the plain
	// model's parameters as its prefix from the same seed.
	if !slices.Equal(m.Params[:len(plain.Params)], plain.Params) {
		t.Error("the host-head model's switch weights differ from the plain model's of the same seed")
	}
	for _, tc := range []struct {
		name, old, new string
		want           error
	}{
		{"other table", HostTableID, "graphcc-dcqcn-actions/v0", ErrMismatch},
		{"no table", `,"host_table":"` + HostTableID + `"`, "", ErrBadHeader},
	} {
		bad := nnReseal(nnWithHeader(b, func(h string) string { return strings.Replace(h, tc.old, tc.new, 1) }))
		if _, err := Unmarshal(bad, "bad", GraphCCExpect()); !errors.Is(err, tc.want) {
			t.Errorf("%s: %v, want %v", tc.name, err, tc.want)
		}
	}
}

// hostRun simulates testfabric.SmallFlows on f under p and returns the FCTs.
func hostRun(t *testing.T, f *topo.Fabric, p control.Policy) []trace.FCT {
	t.Helper()
	res, err := replay.Run(replay.Config{Fabric: f, Flows: testfabric.SmallFlows(t, f), Policy: p, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	return res.FCT
}

// hostBiased returns m with its host head's output biased to action a.
func hostBiased(m *Model, a int) *Model {
	c := m.Clone()
	c.HostOut.b2(c.Params)[a] = 1e6
	return c
}

// TestGraphCCHostHead: a host-head model's DecideHosts writes the table's
// setting of every host agent's greedy action and leaves the switches'
// decisions as the same weights without a host head make them; in the
// simulator, choosing HPCC's preset (the fabric's default) everywhere
// changes nothing and choosing the best joint constant changes the run.
func TestGraphCCHostHead(t *testing.T) {
	f := testfabric.SmallClos(t)
	m := NewModelShape(hostShape(), rand.New(rand.NewPCG(1, 7)))
	plain := seededModel(1) // the same switch weights, no host head
	if !slices.Equal(m.Params[:len(plain.Params)], plain.Params) {
		t.Fatal("the host-head model's switch weights differ from seededModel(1)'s")
	}
	if mustGraphCC(t, plain, f, FeatureConfig{}).DecidesHosts() {
		t.Error("a model without a host head decides the hosts")
	}
	g := mustGraphCC(t, hostBiased(m, 9), f, FeatureConfig{})
	if !g.DecidesHosts() || !slices.Equal(g.Hosts(), control.HostPorts(f)) {
		t.Fatalf("host agents %v, want the hosts' NIC ports %v", g.Hosts(), control.HostPorts(f))
	}
	tel := &control.Telemetry{Interval: testDt, Ports: make([]control.PortSample, len(f.Ports))}
	ecn, hosts := control.StaticSettings(f), make([]control.HostParams, len(f.Ports))
	g.Decide(tel, ecn)
	g.DecideHosts(tel, hosts)
	for _, p := range g.Hosts() {
		if hosts[p] != HostAction(9) {
			t.Errorf("host port %d: %+v, want host action 9 %+v", p, hosts[p], HostAction(9))
		}
	}
	if len(g.LastActions()) != len(f.Agents()) || !slices.Equal(g.LastHostActions(), slices.Repeat([]int{9}, len(g.Hosts()))) {
		t.Errorf("last actions %v, host actions %v", g.LastActions(), g.LastHostActions())
	}
	want := hostRun(t, f, mustGraphCC(t, plain, f, FeatureConfig{}))
	if got := hostRun(t, f, mustGraphCC(t, hostBiased(m, 0), f, FeatureConfig{})); !slices.Equal(got, want) {
		t.Error("a host head choosing HPCC's preset changed the run")
	}
	if got := hostRun(t, f, mustGraphCC(t, hostBiased(m, NumHostActions-1), f, FeatureConfig{})); slices.Equal(got, want) {
		t.Error("a host head choosing the best joint constant did not change the run")
	}
}

func TestHostHeadNoAllocs(t *testing.T) {
	f := topoDefault(t)
	tel := &control.Telemetry{Interval: testDt, Ports: make([]control.PortSample, len(f.Ports))}
	r := rand.New(rand.NewPCG(1, 1))
	for i := range tel.Ports {
		tel.Ports[i] = testfabric.Sample(r.Float64(), r.Float64()/10, int64(r.IntN(300000)), f.Ports[i].Rate)
	}
	ecn, hosts := control.StaticSettings(f), make([]control.HostParams, len(f.Ports))
	model := func() *Model { return NewModelShape(hostShape(), rand.New(rand.NewPCG(1, 7))) }
	g := mustGraphCC(t, model(), f, FeatureConfig{})
	if a := testing.AllocsPerRun(50, func() { g.Decide(tel, ecn); g.DecideHosts(tel, hosts) }); a != 0 {
		t.Errorf("GraphCC.Decide and DecideHosts: %v allocations", a)
	}
	ws := NewWorkspace(model(), f.Graph())
	xs, q := make([]float64, len(f.Ports)*NumFeatures), make([]float64, ws.QLen())
	grad := make([]float64, hostShape().NumParams())
	m := model()
	if a := testing.AllocsPerRun(20, func() { m.Forward(ws, xs, q); m.Backward(ws, q, grad) }); a != 0 {
		t.Errorf("Forward and Backward with a host head: %v allocations", a)
	}
}
