package gnn

import (
	"fmt"
	"math"
	"slices"
	"testing"

	"graphcc/control"
	"graphcc/topo"
	"graphcc/workload"
)

// floorBase returns a base configuration of f that is not the model's
// actions: Alibaba's thresholds on the ports facing a host, 16,64,0.5
// on those facing a switch.
func floorBase(f *topo.Fabric) []control.ECN {
	base := control.StaticSettings(f)
	for i, p := range f.Ports {
		if f.Nodes[p.Src].Switch && f.Nodes[p.Dst].Switch {
			base[i] = control.ECN{KMin: 16 * control.KB, KMax: 64 * control.KB, PMax: 0.5}
		}
	}
	return base
}

// floorHosts returns hosts' constants by PortID: the default ones on
// every host's NIC port.
func floorHosts(f *topo.Fabric) []control.HostParams {
	h := make([]control.HostParams, len(f.Ports))
	for _, p := range control.HostPorts(f) {
		h[p] = control.DefaultHostParams()
	}
	return h
}

// floorModels are a model without a host head and one with.
func floorModels() []*Model {
	plain := NewModel(nnNewRand(31))
	nnPerturbBiases(plain, 32)
	hosts := NewModelShape(hostShape(), nnNewRand(33))
	nnPerturbBiases(hosts, 34)
	return []*Model{plain, hosts}
}

// medianGap returns the median Q-gap over base of g's decision on tel (a
// margin that some agents pass and others do not).
func medianGap(g *GraphCC, tel *control.Telemetry, base []control.ECN) float64 {
	g.Decide(tel, slices.Clone(base))
	gaps := floorGaps(g, base)
	g.Reset()
	slices.Sort(gaps)
	return gaps[len(gaps)/2]
}

// departedByPort returns, by PortID (switch ports, then host NIC ports),
// whether the per-switch agents of ps took the model's choice.
func departedByPort(ps *PerSwitch, n int) []bool {
	out := make([]bool, n)
	for i, af := range ps.Floors() {
		ag := ps.agents[i]
		for j, p := range slices.Concat(ag.OwnPorts(), ag.Hosts())[:len(af.Departed())] {
			out[p] = af.Departed()[j]
		}
	}
	return out
}

// TestPerSwitchFloorMatchesFloor: with ideal delivery and no link down,
// the floored per-switch agents set every port and host as the central
// Floor step by step (and depart where it departs), with a model without
// and with a host head, on the default Clos and with a failed link, at a
// margin some ports pass; margin +inf gives the base exactly, -inf the
// model's choices exactly.
func TestPerSwitchFloorMatchesFloor(t *testing.T) {
	inf := math.Inf(1)
	for _, fc := range agentFabrics(t)[1:3] {
		for _, m := range floorModels() {
			f := fc.f
			base := floorBase(f)
			mid := medianGap(mustGraphCC(t, m, f, FeatureConfig{}), agentTelemetry(nnNewRand(40), f), base)
			for _, margin := range []float64{mid, inf, -inf} {
				t.Run(fmt.Sprintf("%s/hosts=%d/margin=%g", fc.name, m.HostActions, margin), func(t *testing.T) {
					floorCompare(t, f, m, base, margin)
				})
			}
		}
	}
}

// floorCompare runs 30 steps of random telemetry through the central
// Floor and its per-switch agents at margin and compares them.
func floorCompare(t *testing.T, f *topo.Fabric, m *Model, base []control.ECN, margin float64) {
	gates := FloorGates{Margin: margin, HostMargin: margin, HoldLinks: true, LinkHold: 2 * testDt}
	central, err := NewFloor(mustGraphCC(t, m, f, FeatureConfig{}), control.Static{}, base, f, gates)
	if err != nil {
		t.Fatal(err)
	}
	twin, err := NewFloor(mustGraphCC(t, m, f, FeatureConfig{}), control.Static{}, base, f, gates)
	if err != nil {
		t.Fatal(err)
	}
	ps, err := NewPerSwitchFloor(twin, f)
	if err != nil {
		t.Fatal(err)
	}
	ps.Shuffle(5)
	model := mustGraphCC(t, m, f, FeatureConfig{}) // the model alone, for -inf
	want, got, alone := slices.Clone(base), slices.Clone(base), slices.Clone(base)
	wantH, gotH, aloneH := floorHosts(f), floorHosts(f), floorHosts(f)
	g := central.GraphCC()
	r := nnNewRand(41)
	departed, held := 0, 0
	for step := range 30 {
		tel := agentTelemetry(r, f)
		tel.Now = int64(step+1) * testDt
		central.Decide(tel, want)
		ps.Decide(tel, got)
		model.Decide(tel, alone)
		central.DecideHosts(tel, wantH)
		ps.DecideHosts(tel, gotH)
		model.DecideHosts(tel, aloneH)
		if !slices.Equal(got, want) || !slices.Equal(gotH, wantH) {
			t.Fatalf("step %d: the agents' settings differ from the central Floor's", step)
		}
		dep := departedByPort(ps, len(f.Ports))
		for i, p := range slices.Concat(g.Agents(), g.Hosts()) {
			if dep[p] != central.Departed()[i] {
				t.Fatalf("step %d: port %s departed %v, central %v", step, f.PortName(p), dep[p], central.Departed()[i])
			}
			if dep[p] {
				departed++
			} else {
				held++
			}
		}
		switch {
		case math.IsInf(margin, 1) && (!slices.Equal(got, base) || !slices.Equal(gotH, floorHosts(f))):
			t.Fatalf("step %d: margin +inf, not the base", step)
		case math.IsInf(margin, -1) && (!slices.Equal(got, alone) || m.HostActions > 0 && !slices.Equal(gotH, aloneH)):
			t.Fatalf("step %d: margin -inf, not the model's choices", step)
		}
	}
	if !math.IsInf(margin, 0) && (departed == 0 || held == 0) {
		t.Errorf("margin %g: %d port-steps departed, %d held: the gate was not exercised both ways", margin, departed, held)
	}
}

// TestPerSwitchFloorLinkHold: a per-switch agent holds its ports and hosts
// on the base while a link of its own switch is down and for the hold
// after; the other agents keep taking the model's choices, where the
// central Floor holds the whole fabric.
func TestPerSwitchFloorLinkHold(t *testing.T) {
	f := nnDefaultClos(t)
	m := floorModels()[1]
	base := floorBase(f)
	gates := FloorGates{Margin: math.Inf(-1), HostMargin: math.Inf(-1), HoldLinks: true, LinkHold: 2 * testDt}
	fl, err := NewFloor(mustGraphCC(t, m, f, FeatureConfig{}), control.Static{}, base, f, gates)
	if err != nil {
		t.Fatal(err)
	}
	ps, err := NewPerSwitchFloor(fl, f)
	if err != nil {
		t.Fatal(err)
	}
	l, ok := f.LinkByName("leaf0-spine0")
	if !ok {
		t.Fatal("no link leaf0-spine0")
	}
	a, b := f.Links[l].A, f.Links[l].B
	got, gotH := slices.Clone(base), floorHosts(f)
	r := nnNewRand(42)
	for step := range 8 {
		tel := agentTelemetry(r, f)
		tel.Now = int64(step+1) * testDt
		down := step == 2 || step == 3
		for i, p := range f.Ports {
			tel.Ports[i].LinkDown = down && (p.Src == a && p.Dst == b || p.Src == b && p.Dst == a)
		}
		ps.Decide(tel, got)
		ps.DecideHosts(tel, gotH)
		// down at steps 2 and 3; held until 2 intervals after step 3's end
		heldNow := step >= 2 && step <= 4
		for i, af := range ps.Floors() {
			n := f.Nodes[ps.agents[i].View().Switch]
			adjacent := n.ID == a || n.ID == b
			if af.Held() != (adjacent && heldNow) {
				t.Errorf("step %d: %s held %v, want %v", step, n.Name, af.Held(), adjacent && heldNow)
			}
			if af.Held() && slices.Contains(af.Departed(), true) {
				t.Errorf("step %d: %s held but departed", step, n.Name)
			}
			if !af.Held() && slices.Contains(af.Departed(), false) {
				t.Errorf("step %d: %s not held at margin -inf, yet kept the base", step, n.Name)
			}
			for _, p := range ps.agents[i].OwnPorts() {
				if af.Held() && got[p] != base[p] {
					t.Errorf("step %d: %s held, port %s not on the base", step, n.Name, f.PortName(p))
				}
			}
		}
	}
}

// TestPerSwitchFloorNoAllocs: a floored per-switch step, hosts included,
// allocates nothing.
func TestPerSwitchFloorNoAllocs(t *testing.T) {
	f := nnDefaultClos(t)
	m := floorModels()[1]
	base := floorBase(f)
	tel := agentTelemetry(nnNewRand(2), f)
	fl, err := NewFloor(mustGraphCC(t, m, f, FeatureConfig{}), control.Static{}, base, f,
		FloorGates{Margin: medianGap(mustGraphCC(t, m, f, FeatureConfig{}), tel, base), HoldLinks: true, LinkHold: testDt})
	if err != nil {
		t.Fatal(err)
	}
	ps, err := NewPerSwitchFloor(fl, f)
	if err != nil {
		t.Fatal(err)
	}
	ps.Shuffle(1)
	ecn, hosts := slices.Clone(base), floorHosts(f)
	if n := testing.AllocsPerRun(20, func() { ps.Decide(tel, ecn); ps.DecideHosts(tel, hosts) }); n != 0 {
		t.Errorf("Decide and DecideHosts allocate %.1f times per step", n)
	}
}

// TestPerSwitchFloorRefuses: a base that decides the hosts' constants
// every interval is refused, as are gates no Floor runs.
func TestPerSwitchFloorRefuses(t *testing.T) {
	f := nnDefaultClos(t)
	m := floorModels()[1]
	other, err := NewFloor(mustGraphCC(t, m, f, FeatureConfig{}), control.Static{}, nil, f, UniformGates(0))
	if err != nil {
		t.Fatal(err)
	}
	// a floor whose base is another host-head model's step decides hosts
	fl, err := NewFloor(mustGraphCC(t, m, f, FeatureConfig{}), other, nil, f, UniformGates(0))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := NewPerSwitchFloor(fl, f); err == nil {
		t.Error("a base that decides the hosts' constants was taken")
	}
	ps, err := NewPerSwitch(m, f, FeatureConfig{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := NewAgentFloor(ps.agents[0], control.StaticSettings(f), FloorGates{Margin: math.NaN()}); err == nil {
		t.Error("a NaN margin was taken")
	}
	if _, err := NewAgentFloor(ps.agents[0], control.StaticSettings(f)[:3], UniformGates(0)); err == nil {
		t.Error("base settings that do not cover the agent's ports were taken")
	}
}

// TestInBandFloorMatchesCentral: the floored agents with messages as
// packets, no loss, commit every step the central Floor's settings and
// hosts' constants on the same telemetry (the shadow counts no mismatch),
// from the base's starting settings; past a 100 ns deadline every agent
// falls back on the base's settings, not the static ones.
func TestInBandFloorMatchesCentral(t *testing.T) {
	f := nnDefaultClos(t)
	gen := workload.DefaultGen()
	gen.Duration = 2 * topo.Millisecond
	flows, err := workload.Generate(f, gen)
	if err != nil {
		t.Fatal(err)
	}
	base := floorBase(f)
	for _, m := range floorModels() {
		for _, cfg := range []InBandConfig{{Misses: control.DefaultMissLimit}, {Deadline: 100, Misses: control.DefaultMissLimit}} {
			t.Run(fmt.Sprintf("hosts=%d/deadline=%d", m.HostActions, cfg.Deadline), func(t *testing.T) {
				margin := medianGap(mustGraphCC(t, m, f, FeatureConfig{}), agentTelemetry(nnNewRand(43), f), base)
				if m.HostActions == 0 {
					margin *= 0.25 // the random model's gaps in the simulator are below those on random telemetry
				}
				gates := FloorGates{Margin: margin, HostMargin: margin}
				mk := func() *Floor {
					fl, err := NewFloor(mustGraphCC(t, m, f, FeatureConfig{}), control.Static{}, base, f, gates)
					if err != nil {
						t.Fatal(err)
					}
					return fl
				}
				ib, err := NewInBandFloor(mk(), f, cfg)
				if err != nil {
					t.Fatal(err)
				}
				central := mk()
				c := &inBandCheck{InBand: ib, central: central, g: central.GraphCC(), want: slices.Clone(base), wantH: make([]control.HostParams, len(f.Ports))}
				res, _ := inBandSimulate(t, f, flows, c, base, 0)
				a := res.Summary.AgentStats
				if cfg.Deadline == 0 {
					if c.departed == 0 || c.kept == 0 {
						t.Errorf("%d port- and host-steps departed, %d kept the base: the gate was not exercised both ways", c.departed, c.kept)
					}
					if a.DecisionMismatches != 0 || c.diff != 0 || a.LateMessages != 0 {
						t.Errorf("%d mismatches counted, %d port-steps differ from the central Floor, %d late", a.DecisionMismatches, c.diff, a.LateMessages)
					}
					if h := a.HostDecisionMismatches; m.HostActions > 0 && (h == nil || *h != 0 || c.hostSet == 0) {
						t.Errorf("host mismatches %v over %d host-steps", h, c.hostSet)
					}
					return
				}
				if a.StaticSteps == 0 {
					t.Fatal("no agent fell back")
				}
				for _, p := range c.g.Agents() {
					if ib.ecn[p] != base[p] {
						t.Errorf("port %s fell back to %+v, not the base's %+v", f.PortName(p), ib.ecn[p], base[p])
					}
				}
			})
		}
	}
}
