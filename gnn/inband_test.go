package gnn

import (
	"slices"
	"strings"
	"testing"

	"graphcc/control"
	"graphcc/replay"
	"graphcc/topo"
	"graphcc/trace"
	"graphcc/workload"
)

// inBandCheck is an InBand that also decides every step with a central
// GraphCC (or Floor) of its own on the step's telemetry and compares the
// settings the agents commit with it, port by port: a check independent
// of the InBand's shadow.
type inBandCheck struct {
	*InBand
	central  control.HostDecider
	g        *GraphCC // central's model policy: its agents and hosts
	want     []control.ECN
	wantH    []control.HostParams
	steps    int
	diff     int // port-steps whose committed setting differs, and host-steps
	hostSet  int // host-steps whose constants were committed
	hostDiff int // host-steps whose committed constants differ
	// With a floor: the agents' port- and host-steps on the model's
	// choice and on the base's.
	departed, kept int
	// committed are the hosts' constants each step committed (with a host
	// head), by step then PortID.
	committed [][]control.HostParams
}

func (c *inBandCheck) Start(net control.Net, t *control.Telemetry) bool {
	c.central.Decide(t, c.want)
	return c.InBand.Start(net, t)
}

func (c *inBandCheck) Settings(ecn []control.ECN, hosts []control.HostParams) {
	if c.steps == 0 && hosts != nil {
		copy(c.wantH, hosts) // a Floor's base constants: the hosts' at the start
	}
	c.InBand.Settings(ecn, hosts)
	c.steps++
	for _, af := range c.ps.Floors() {
		for _, d := range af.Departed() {
			if d {
				c.departed++
			} else {
				c.kept++
			}
		}
	}
	for _, p := range c.g.Agents() {
		if ecn[p] != c.want[p] {
			c.diff++
		}
	}
	if hosts == nil {
		return
	}
	c.committed = append(c.committed, slices.Clone(hosts))
	c.central.DecideHosts(nil, c.wantH)
	for _, p := range c.g.Hosts() {
		c.hostSet++
		if hosts[p] != c.wantH[p] {
			c.diff++
			c.hostDiff++
		}
	}
}

// inBandRun runs 2 ms of the default traffic on f under the shipped
// model's per-switch agents with cfg and message loss, and returns the
// result and the check.
func inBandRun(t *testing.T, f *topo.Fabric, cfg InBandConfig, loss float64) (*replay.Result, *inBandCheck) {
	t.Helper()
	m, err := EmbeddedModel()
	if err != nil {
		t.Fatal(err)
	}
	return inBandRunModel(t, m, f, cfg, loss)
}

// inBandRunModel is inBandRun with model m.
func inBandRunModel(t *testing.T, m *Model, f *topo.Fabric, cfg InBandConfig, loss float64) (*replay.Result, *inBandCheck) {
	t.Helper()
	gen := workload.DefaultGen()
	gen.Duration = 2 * topo.Millisecond
	flows, err := workload.Generate(f, gen)
	if err != nil {
		t.Fatal(err)
	}
	ib, err := NewInBand(m, f, FeatureConfig{}, cfg)
	if err != nil {
		t.Fatal(err)
	}
	g := mustGraphCC(t, m, f, FeatureConfig{})
	c := &inBandCheck{InBand: ib, central: g, g: g, want: control.StaticSettings(f),
		wantH: make([]control.HostParams, len(f.Ports))}
	return inBandSimulate(t, f, flows, c, nil, loss)
}

// inBandSimulate runs flows on f under c's agents, starting from settings
// ecn (nil: the static ones), with message loss.
func inBandSimulate(t *testing.T, f *topo.Fabric, flows []trace.Flow, c *inBandCheck, ecn []control.ECN, loss float64) (*replay.Result, *inBandCheck) {
	t.Helper()
	res, err := replay.Run(replay.Config{Fabric: f, Flows: flows, Policy: c, ECN: ecn, Seed: 1, MessageLoss: loss})
	if err != nil {
		t.Fatal(err)
	}
	if res.Summary.Completed != len(flows) {
		t.Errorf("%d of %d flows completed", res.Summary.Completed, len(flows))
	}
	return res, c
}

// switchEdges returns the directed switch-to-switch links of f.
func switchEdges(f *topo.Fabric) int {
	n := 0
	for _, p := range f.Ports {
		if f.Nodes[p.Src].Switch && f.Nodes[p.Dst].Switch {
			n++
		}
	}
	return n
}

// TestInBandMatchesCentral: with messages as packets, no loss and the
// default deadline, every step's settings are the central policy's on the
// same telemetry (the shadow's count and an independent check agree), on
// the default Clos and with a failed link, with the shipped model and
// with a host head on the grid and on a table of profiles (the hosts'
// constants too); every step sends K × the
// live directed switch-to-switch links' messages, none late.
func TestInBandMatchesCentral(t *testing.T) {
	shipped, err := EmbeddedModel()
	if err != nil {
		t.Fatal(err)
	}
	hostModel := NewModelShape(hostShape(), nnNewRand(21))
	nnPerturbBiases(hostModel, 22)
	profiles := profilesModel(t, DefaultShape(), 23)
	nnPerturbBiases(profiles, 24)
	for _, tc := range []struct {
		name  string
		m     *Model
		f     *topo.Fabric
		edges int
	}{
		{"default", shipped, nnDefaultClos(t), 16},
		{"leaf0-spine1 failed", shipped, agentFailedClos(t), 14},
		{"host head", hostModel, nnDefaultClos(t), 16},
		{"host head on profiles", profiles, nnDefaultClos(t), 16},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res, c := inBandRunModel(t, tc.m, tc.f, InBandConfig{Misses: control.DefaultMissLimit}, 0)
			if tc.m.HostActions > 0 && c.hostSet == 0 {
				t.Error("no host constants committed")
			}
			if h := res.Summary.AgentStats.HostDecisionMismatches; (h != nil) != (tc.m.HostActions > 0) || h != nil && *h != 0 {
				t.Errorf("host decision mismatches %v, want 0 with a host head, absent without", h)
			}
			a := res.Summary.AgentStats
			if a == nil {
				t.Fatal("no agent stats in the summary")
			}
			if got := switchEdges(tc.f); got != tc.edges {
				t.Fatalf("%d directed switch links, want %d", got, tc.edges)
			}
			k := int64(c.Rounds())
			switch {
			case a.Steps < 10 || int64(c.steps) != a.Steps:
				t.Errorf("%d steps begun, %d committed", a.Steps, c.steps)
			case a.Messages != a.Steps*k*int64(tc.edges):
				t.Errorf("%d messages in %d steps, want %d per step", a.Messages, a.Steps, k*int64(tc.edges))
			case a.DecisionMismatches != 0 || c.diff != 0:
				t.Errorf("%d mismatches counted, %d port-steps differ from central", a.DecisionMismatches, c.diff)
			case a.LateMessages != 0 || a.FallbackRounds != 0 || a.StaticSteps != 0 || a.Lost != 0:
				t.Errorf("late %d, fallback rounds %d, static steps %d, lost %d; want none", a.LateMessages, a.FallbackRounds, a.StaticSteps, a.Lost)
			case a.RoundUSMean < 1 || a.RoundUSP99 > 2 || a.DecisionUSMean < 2*a.RoundUSMean*0.9:
				// a round is at least the 1 µs link delay, and nothing
				// but one data packet can hold a message back
				t.Errorf("round latency mean %.3f p99 %.3f µs, decision %.3f µs", a.RoundUSMean, a.RoundUSP99, a.DecisionUSMean)
			}
			if len(res.Summary.ECNSettings) < 2 {
				t.Errorf("settings used %v: the policy never adapted", res.Summary.ECNSettings)
			}
		})
	}
}

// TestInBandLate: past the round deadline, and with lost messages, rounds
// fall back, the late messages are counted, the agents revert to the
// static settings after Misses steps, and the run repeats bit for bit.
func TestInBandLate(t *testing.T) {
	f := nnDefaultClos(t)
	for _, tc := range []struct {
		name     string
		cfg      InBandConfig
		loss     float64
		allLate  bool // every message misses its round
		noStatic bool
	}{
		// 100 ns is less than a link's 1 µs delay: no message is in time
		{"tiny deadline", InBandConfig{Deadline: 100 * topo.Nanosecond, Misses: control.DefaultMissLimit}, 0, true, false},
		{"tiny deadline, never static", InBandConfig{Deadline: 100 * topo.Nanosecond}, 0, true, true},
		{"5% loss", InBandConfig{Misses: control.DefaultMissLimit}, 0.05, false, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res, c := inBandRun(t, f, tc.cfg, tc.loss)
			a := *res.Summary.AgentStats
			agents, k := int64(len(c.ps.agents)), int64(c.Rounds())
			if a.LateMessages == 0 || a.FallbackRounds == 0 || a.DecisionMismatches == 0 || c.diff == 0 {
				t.Errorf("late %d, fallback rounds %d, mismatches %d (check %d): want some of each", a.LateMessages, a.FallbackRounds, a.DecisionMismatches, c.diff)
			}
			if tc.allLate {
				if a.LateMessages != a.Messages || a.FallbackRounds != a.Steps*agents*k {
					t.Errorf("%d of %d messages late, %d fallback rounds in %d steps", a.LateMessages, a.Messages, a.FallbackRounds, a.Steps)
				}
				steps := a.Steps - int64(control.DefaultMissLimit) + 1
				if tc.noStatic {
					steps = 0
				}
				if a.StaticSteps != agents*steps {
					t.Errorf("%d static agent-steps, want %d", a.StaticSteps, agents*steps)
				}
				if want := steps * int64(len(f.Agents())); a.FallbackPortSteps != want {
					t.Errorf("%d fallback port-steps, want %d", a.FallbackPortSteps, want)
				}
				if d := float64(k) * 0.1; a.DecisionUSMean != d {
					t.Errorf("decision delay %.3f µs, want the last deadline's %.3f", a.DecisionUSMean, d)
				}
			}
			if tc.loss > 0 {
				if a.Lost == 0 || a.LateMessages < a.Lost {
					t.Errorf("%d lost, %d late: every lost message is late", a.Lost, a.LateMessages)
				}
				if got := float64(a.Lost) / float64(a.Messages); got < tc.loss/2 || got > 2*tc.loss {
					t.Errorf("%.4f of the messages lost, want about %g", got, tc.loss)
				}
			}
			again, _ := inBandRun(t, f, tc.cfg, tc.loss)
			if !slices.Equal(res.FCT, again.FCT) || *again.Summary.AgentStats != a {
				t.Error("a second run with the same seed differs")
			}
		})
	}
}

// TestInBandHostsStatic: with a host head, a leaf on the static settings
// (every message late past a 100 ns deadline, from the Misses-th step on)
// puts its hosts on the constants they started with, and each host-step
// whose constants then differ from the shadow's counts; a leaf that never
// reverts (Misses 0) keeps its model's choice.
func TestInBandHostsStatic(t *testing.T) {
	f := nnDefaultClos(t)
	m := NewModelShape(hostShape(), nnNewRand(21))
	nnPerturbBiases(m, 22)
	start := control.DefaultHostParams()
	for _, tc := range []struct {
		name   string
		misses int
	}{{"static from step 3", control.DefaultMissLimit}, {"never static", 0}} {
		t.Run(tc.name, func(t *testing.T) {
			res, c := inBandRunModel(t, m, f, InBandConfig{Deadline: 100 * topo.Nanosecond, Misses: tc.misses}, 0)
			a := res.Summary.AgentStats
			if len(c.committed) < 10 {
				t.Fatalf("%d steps committed", len(c.committed))
			}
			hosts := control.HostPorts(f)
			moved := 0
			for j, h := range c.committed {
				for _, p := range hosts {
					if j >= control.DefaultMissLimit-1 && tc.misses > 0 && h[p] != start {
						t.Fatalf("step %d: host port %d on %+v, want the starting %+v", j, p, h[p], start)
					}
					if h[p] != start {
						moved++
					}
				}
			}
			if tc.misses == 0 && moved == 0 {
				t.Error("no host ever left its starting constants: the test shows little")
			}
			if a.HostDecisionMismatches == nil || *a.HostDecisionMismatches == 0 || *a.HostDecisionMismatches != int64(c.hostDiff) {
				t.Errorf("host decision mismatches %v, want some, as many as the check's %d", a.HostDecisionMismatches, c.hostDiff)
			}
		})
	}
}

// TestInBandCompute: with a compute time each round ends that long after
// it begins, so the decisions come K × (a link's delay + the compute
// time) after the tick, still central's; a compute time past the second
// round's deadline makes every round-2 message late.
func TestInBandCompute(t *testing.T) {
	f := nnDefaultClos(t)
	for _, tc := range []struct {
		name     string
		cfg      InBandConfig
		lateOf2  bool // every round-2 message late, no round-1 one
		minDelay float64
	}{
		{"3 µs", InBandConfig{Compute: 3 * topo.Microsecond, Misses: control.DefaultMissLimit}, false, 2 * (1 + 3)},
		{"3 µs past a 2 µs deadline", InBandConfig{Compute: 3 * topo.Microsecond, Deadline: 2 * topo.Microsecond, Misses: control.DefaultMissLimit}, true, 1 + 3 + 3},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res, c := inBandRun(t, f, tc.cfg, 0)
			a := *res.Summary.AgentStats
			agents := int64(len(c.ps.agents))
			if a.DecisionUSMean < tc.minDelay || a.DecisionUSP99 > tc.minDelay+0.5 || a.RoundUSMean < 3 {
				t.Errorf("decision delay mean %.3f p99 %.3f µs, round %.3f µs; want from %.3f", a.DecisionUSMean, a.DecisionUSP99, a.RoundUSMean, tc.minDelay)
			}
			if !tc.lateOf2 {
				if a.LateMessages != 0 || a.DecisionMismatches != 0 || c.diff != 0 {
					t.Errorf("late %d, mismatches %d (check %d), want none", a.LateMessages, a.DecisionMismatches, c.diff)
				}
				return
			}
			if a.LateMessages != a.Messages/2 || a.FallbackRounds != a.Steps*agents {
				t.Errorf("%d of %d messages late, %d fallback rounds in %d steps; want round 2's, every agent's", a.LateMessages, a.Messages, a.FallbackRounds, a.Steps)
			}
		})
	}
}

// TestInBandDeterministicFCT: the FCT file of a lossy run is the same
// bytes twice over, and differs from the loss-free run's.
func TestInBandDeterministicFCT(t *testing.T) {
	f := nnDefaultClos(t)
	fct := func(loss float64) string {
		res, _ := inBandRun(t, f, InBandConfig{Misses: control.DefaultMissLimit}, loss)
		var b strings.Builder
		if err := trace.WriteFCT(&b, res.FCT); err != nil {
			t.Fatal(err)
		}
		return b.String()
	}
	a, b, none := fct(0.2), fct(0.2), fct(0)
	if a != b {
		t.Error("two runs with 20% loss and the same seed differ")
	}
	if a == none {
		t.Error("20% message loss changed no flow's completion")
	}
}

// TestInBandNoAllocs: the simulator's step with per-switch agents does
// not allocate but for amortized growth.
func TestInBandNoAllocs(t *testing.T) {
	f := nnDefaultClos(t)
	m, err := EmbeddedModel()
	if err != nil {
		t.Fatal(err)
	}
	gen := workload.DefaultGen()
	gen.Duration = 5 * topo.Millisecond
	flows, err := workload.Generate(f, gen)
	if err != nil {
		t.Fatal(err)
	}
	ib, err := NewInBand(m, f, FeatureConfig{}, InBandConfig{Misses: control.DefaultMissLimit})
	if err != nil {
		t.Fatal(err)
	}
	s, err := replay.New(replay.Config{Fabric: f, Flows: flows, Policy: ib, Seed: 5, MessageLoss: 0.01})
	if err != nil {
		t.Fatal(err)
	}
	for k := 0; k < 300_000 && s.Step(); k++ {
	}
	if allocs := testing.AllocsPerRun(20_000, func() { s.Step() }); allocs > 0.01 {
		t.Errorf("Step allocates %.4f times per event", allocs)
	}
}
