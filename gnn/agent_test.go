package gnn

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"graphcc/control"
	"graphcc/replay"
	"graphcc/topo"
	"graphcc/workload"
)

// agentFailedClos is the default Clos without leaf0-spine1.
func agentFailedClos(t testing.TB) *topo.Fabric {
	t.Helper()
	f, err := nnDefaultClos(t).FailLinks("leaf0-spine1")
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// agentFabrics are the fabrics the decomposition is checked on.
func agentFabrics(t testing.TB) []struct {
	name string
	f    *topo.Fabric
} {
	return []struct {
		name string
		f    *topo.Fabric
	}{
		{"small", nnSmallClos(t)},
		{"default", nnDefaultClos(t)},
		{"failed-leaf0-spine1", agentFailedClos(t)},
		{"medium", inferMediumClos(t)},
	}
}

// agentFeatures returns random features of n ports × width, about a third
// of them exactly 0 (idle ports, steps not yet observed).
func agentFeatures(r *rand.Rand, n int) []float64 {
	x := make([]float64, n)
	for i := range x {
		if r.IntN(3) > 0 {
			x[i] = 1.5 * r.Float64()
		}
	}
	return x
}

// agentBegin begins a step of every agent of ps on its rows of the
// fabric-wide features x.
func agentBegin(ps *PerSwitch, x []float64, F int) {
	for i, ag := range ps.agents {
		local := make([]float64, 0, len(ps.local[i])*F)
		for _, p := range ps.local[i] {
			local = append(local, x[int(p)*F:int(p)*F+F]...)
		}
		ag.Begin(local)
	}
}

// sameBits reports whether a and b hold the same float32 bit patterns.
func sameBits(a, b []float32) bool {
	return slices.EqualFunc(a, b, func(x, y float32) bool { return math.Float32bits(x) == math.Float32bits(y) })
}

// TestAgentsMatchInference: the union of the per-switch agents' hidden
// states h^k (k < K), Q values and greedy actions is the central
// Inference's bit for bit, on several fabrics (one with a failed link),
// shapes (with and without a host head) and both kernel sets, with every
// round's messages delivered in a shuffled order.
func TestAgentsMatchInference(t *testing.T) {
	shapes := []struct {
		name string
		s    Shape
	}{
		{"default", DefaultShape()},
		{"flowmix", FeaturesFlowMix.Shape()},
		{"hosts", Shape{Features: 9, Hidden: 24, K: 2, Actions: NumActions, HostActions: NumHostActions}},
		{"K1-hosts", Shape{Features: 9, Hidden: 24, K: 1, Actions: 30, HostActions: 5}},
		{"K3-H12-hosts", Shape{Features: 9, Hidden: 12, K: 3, Actions: 7, HostActions: 4}},
	}
	for _, fc := range agentFabrics(t) {
		for _, sc := range shapes {
			for _, asm := range inferKernels() {
				t.Run(fmt.Sprintf("%s/%s/%s", fc.name, sc.name, kernelName(asm)), func(t *testing.T) {
					agentCompare(t, fc.f, inferModel(sc.s, 91), asm)
				})
			}
		}
	}
}

// agentCompare runs central and per-switch steps of m on f on random
// features and compares them bit for bit.
func agentCompare(t *testing.T, f *topo.Fabric, m *Model, asm bool) {
	s := m.Shape
	inf := newInference(m, f.Graph(), 1, asm)
	ps, err := newPerSwitch(m, f, FeatureConfig{}, asm)
	if err != nil {
		t.Fatal(err)
	}
	ps.Shuffle(7)
	central := make([]int, len(inf.Agents())+len(inf.Hosts()))
	r := nnNewRand(5)
	for trial := range 20 {
		x := agentFeatures(r, len(f.Ports)*s.Features)
		inf.Greedy(x, central)
		agentBegin(ps, x, s.Features)
		for k := 1; k <= s.K; k++ {
			ps.exchange(k)
		}
		for _, ag := range ps.agents {
			for i := range ag.Ports() + len(ag.Hosts()) {
				p := ag.view.Ports[min(i, ag.Ports()-1)].Port
				if i >= ag.Ports() {
					p = ag.Hosts()[i-ag.Ports()]
				}
				for k := range s.K {
					H := s.Hidden
					if want := inf.c.h[k][int(p)*H : int(p)*H+H]; !sameBits(ag.Hidden(k, i), want) {
						t.Fatalf("trial %d: h^%d of %s: agent %v, central %v", trial, k, f.PortName(p), ag.Hidden(k, i), want)
					}
				}
			}
			agentCompareQ(t, inf, ag, central, f)
		}
	}
}

// agentCompareQ compares one agent's Q values and actions with the
// central ones.
func agentCompareQ(t *testing.T, inf *Inference, ag *Agent, central []int, f *topo.Fabric) {
	t.Helper()
	s := inf.Shape()
	A, HA := s.Actions, s.HostActions
	for i, vp := range ag.view.Ports {
		j, ok := slices.BinarySearch(inf.Agents(), vp.Port)
		if !ok {
			t.Fatalf("port %s is not a central agent", f.PortName(vp.Port))
		}
		if !sameBits(ag.Q()[i*A:i*A+A], inf.Q()[j*A:j*A+A]) || ag.Actions()[i] != central[j] {
			t.Fatalf("port %s: action %d, central %d, or Q values differ", f.PortName(vp.Port), ag.Actions()[i], central[j])
		}
	}
	if HA == 0 {
		return
	}
	base, cbase := ag.Ports()*A, len(inf.Agents())*A
	for i, p := range ag.Hosts() {
		j, _ := slices.BinarySearch(inf.Hosts(), p)
		got, want := ag.Q()[base+i*HA:base+i*HA+HA], inf.Q()[cbase+j*HA:cbase+j*HA+HA]
		if !sameBits(got, want) || ag.Actions()[ag.Ports()+i] != central[len(inf.Agents())+j] {
			t.Fatalf("host port %s: action or Q values differ", f.PortName(p))
		}
	}
}

// agentTelemetry is one interval of random telemetry on every port of f:
// utilization up to 1.2, a marked share, a depth histogram and flow
// starts.
func agentTelemetry(r *rand.Rand, f *topo.Fabric) *control.Telemetry {
	tel := &control.Telemetry{Interval: testDt, Ports: make([]control.PortSample, len(f.Ports))}
	for i, p := range f.Ports {
		s := &tel.Ports[i]
		if r.IntN(5) == 0 {
			continue // idle
		}
		s.TxBytes = int64(1.2 * r.Float64() * float64(p.Rate) / 8 * float64(testDt) / float64(topo.Second))
		s.MarkedBytes = int64(r.Float64() * 0.3 * float64(s.TxBytes))
		for b := range s.EnqHist {
			if r.IntN(3) == 0 {
				s.EnqHist[b] = int64(r.IntN(200))
			}
		}
		s.FlowStarts = int64(r.IntN(int(s.EnqHist.Count() + 1)))
	}
	return tel
}

// TestPerSwitchMatchesGraphCC: on random telemetry over many steps, the
// per-switch policy sets every port (and with a host head every host)
// exactly as the central GraphCC policy, for both feature sets, on the
// default Clos and with a failed link, with shuffled delivery.
func TestPerSwitchMatchesGraphCC(t *testing.T) {
	for _, fc := range agentFabrics(t)[1:3] {
		for _, set := range FeatureSets() {
			for _, head := range []string{"none", "grid", "profiles"} {
				t.Run(fmt.Sprintf("%s/%s/hosts=%s", fc.name, set, head), func(t *testing.T) {
					f := fc.f
					m := NewModelSet(set, nnNewRand(11))
					hosts := head != "none"
					switch head {
					case "grid":
						s := set.Shape()
						s.HostActions = NumHostActions
						m = NewModelShape(s, nnNewRand(11))
						m.FeatureSet = set
					case "profiles":
						m = profilesModel(t, set.Shape(), 11)
						m.FeatureSet = set
					}
					nnPerturbBiases(m, 12)
					g := mustGraphCC(t, m, f, FeatureConfig{})
					ps, err := NewPerSwitch(m, f, FeatureConfig{})
					if err != nil {
						t.Fatal(err)
					}
					ps.Shuffle(3)
					want, got := control.StaticSettings(f), control.StaticSettings(f)
					wantH, gotH := make([]control.HostParams, len(f.Ports)), make([]control.HostParams, len(f.Ports))
					r := nnNewRand(13)
					changes := 0
					for step := range 40 {
						tel := agentTelemetry(r, f)
						before := slices.Clone(want)
						g.Decide(tel, want)
						ps.Decide(tel, got)
						if !slices.Equal(got, want) {
							t.Fatalf("step %d: settings differ", step)
						}
						if !slices.Equal(before, want) {
							changes++
						}
						if hosts {
							g.DecideHosts(tel, wantH)
							ps.DecideHosts(tel, gotH)
							if !slices.Equal(gotH, wantH) {
								t.Fatalf("step %d: host settings differ", step)
							}
						}
					}
					if changes == 0 {
						t.Fatal("the policy never changed a setting: the comparison shows nothing")
					}
				})
			}
		}
	}
}

// TestPerSwitchMessages: a step exchanges K rounds × the directed
// switch-to-switch links' messages: 2 × 16 = 32 on the default Clos (4
// leaves × 2 spines), 2 × 14 = 28 with leaf0-spine1 failed.
func TestPerSwitchMessages(t *testing.T) {
	for _, tc := range []struct {
		f    *topo.Fabric
		want int
	}{{nnDefaultClos(t), 32}, {agentFailedClos(t), 28}} {
		ps, err := NewPerSwitch(NewModel(nnNewRand(1)), tc.f, FeatureConfig{})
		if err != nil {
			t.Fatal(err)
		}
		if got := ps.MessagesPerStep(); got != tc.want {
			t.Errorf("%d messages per step, want %d", got, tc.want)
		}
		ecn := control.StaticSettings(tc.f)
		tel := agentTelemetry(nnNewRand(2), tc.f)
		for range 3 {
			ps.Decide(tel, ecn)
		}
		if got := ps.Messages(); got != 3*int64(tc.want) {
			t.Errorf("%d messages in 3 steps, want %d", got, 3*tc.want)
		}
	}
}

// TestPerSwitchNoAllocs: a step of every agent, messages shuffled, does
// not allocate.
func TestPerSwitchNoAllocs(t *testing.T) {
	f := nnDefaultClos(t)
	ps, err := NewPerSwitch(NewModel(nnNewRand(1)), f, FeatureConfig{})
	if err != nil {
		t.Fatal(err)
	}
	ps.Shuffle(1)
	ecn := control.StaticSettings(f)
	tel := agentTelemetry(nnNewRand(2), f)
	if n := testing.AllocsPerRun(20, func() { ps.Decide(tel, ecn) }); n != 0 {
		t.Errorf("Decide allocates %.1f times per step", n)
	}
}

// TestAgentReceiveErrors: a message of another round, from a port that is
// not a neighbour switch's, sent twice or of the wrong length is refused,
// and a round cannot be computed before all its messages arrive.
func TestAgentReceiveErrors(t *testing.T) {
	f := nnDefaultClos(t)
	leaf0, _ := f.NodeByName("leaf0")
	v, err := NewSwitchView(f, leaf0)
	if err != nil {
		t.Fatal(err)
	}
	ag := mustAgent(t, NewModel(nnNewRand(1)), v)
	ag.Begin(make([]float64, (ag.Ports()+len(ag.Hosts()))*NumFeatures))
	var fromSpine, fromHost topo.PortID = -1, ag.Hosts()[0]
	for _, vp := range v.Ports {
		if vp.PeerSwitch {
			fromSpine = vp.Port.Reverse()
		}
	}
	h := make([]float32, NumFeatures)
	if err := ag.Round(1); err == nil || !strings.Contains(err.Error(), "lacks 2 of its 2") {
		t.Errorf("round without messages: %v", err)
	}
	for _, tc := range []struct {
		name string
		k    int
		from topo.PortID
		h    []float32
		want string
	}{
		{"round", 2, fromSpine, h, "round 2"},
		{"host", 1, fromHost, h, "does not come from a neighbour switch"},
		{"own port", 1, fromSpine.Reverse(), h, "does not come from a neighbour switch"},
		{"length", 1, fromSpine, make([]float32, Hidden), "has 24 floats, want 9"},
		{"ok", 1, fromSpine, h, ""},
		{"twice", 1, fromSpine, h, "second message"},
	} {
		err := ag.Receive(tc.k, tc.from, tc.h)
		if tc.want == "" && err != nil || tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)) {
			t.Errorf("%s: %v, want %q", tc.name, err, tc.want)
		}
	}
	if ag.Missing() != 1 {
		t.Errorf("%d missing, want 1", ag.Missing())
	}
}

// TestNewSwitchViewErrors: a host is not a switch, and a host with two
// links cannot be computed by one leaf.
func TestNewSwitchViewErrors(t *testing.T) {
	f := nnDefaultClos(t)
	h0, _ := f.NodeByName("h0")
	if _, err := NewSwitchView(f, h0); err == nil || !strings.Contains(err.Error(), "not a switch") {
		t.Errorf("view of a host: %v", err)
	}
	nodes := []topo.Node{{ID: 0, Name: "h0"}, {ID: 1, Name: "h1"}, {ID: 2, Name: "s0", Switch: true}, {ID: 3, Name: "s1", Switch: true}}
	link := func(id, a, b int) topo.Link {
		return topo.Link{ID: topo.LinkID(id), A: topo.NodeID(a), B: topo.NodeID(b), Rate: 25 * topo.Gbps, Delay: topo.Microsecond}
	}
	multi, err := topo.New(nodes, []topo.Link{link(0, 0, 2), link(1, 0, 3), link(2, 1, 2), link(3, 2, 3)}, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := NewSwitchView(multi, 2); err == nil || !strings.Contains(err.Error(), "host h0 has 2 links") {
		t.Errorf("view of a leaf of a two-link host: %v", err)
	}
	if _, err := NewPerSwitch(NewModel(nnNewRand(1)), multi, FeatureConfig{}); err == nil {
		t.Error("per-switch policy on a two-link host's fabric: no error")
	}
}

// TestPerSwitchSimulator: in the simulator the per-switch policy with
// ideal delivery gives the central policy's flow completion times record
// for record, with the shipped model on the default Clos and with a failed
// link.
func TestPerSwitchSimulator(t *testing.T) {
	m, err := EmbeddedModel()
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range []*topo.Fabric{nnDefaultClos(t), agentFailedClos(t)} {
		gen := workload.DefaultGen()
		gen.Duration = 2 * topo.Millisecond
		flows, err := workload.Generate(f, gen)
		if err != nil {
			t.Fatal(err)
		}
		ps, err := NewPerSwitch(m, f, FeatureConfig{})
		if err != nil {
			t.Fatal(err)
		}
		ps.Shuffle(1)
		var res [2]*replay.Result
		for i, p := range []control.Policy{mustGraphCC(t, m, f, FeatureConfig{}), ps} {
			if res[i], err = replay.Run(replay.Config{Fabric: f, Flows: flows, Policy: p, Seed: 1}); err != nil {
				t.Fatal(err)
			}
		}
		if len(res[0].FCT) == 0 || !slices.Equal(res[0].FCT, res[1].FCT) {
			t.Errorf("%d links: %d central FCT records, %d per-switch, or they differ", len(f.Links), len(res[0].FCT), len(res[1].FCT))
		}
		if len(res[0].Summary.ECNSettings) < 2 || !slices.Equal(res[0].Summary.ECNSettings, res[1].Summary.ECNSettings) {
			t.Errorf("%d links: settings used %v central, %v per-switch", len(f.Links), res[0].Summary.ECNSettings, res[1].Summary.ECNSettings)
		}
		if ps.Messages() == 0 || ps.Messages()%int64(ps.MessagesPerStep()) != 0 {
			t.Errorf("%d messages, not a whole number of steps of %d", ps.Messages(), ps.MessagesPerStep())
		}
	}
}

// BenchmarkPerSwitchDefault is BenchmarkStepDefault run as one agent per
// switch with ideal delivery: every agent's step and the exchange, in one
// goroutine.
func BenchmarkPerSwitchDefault(b *testing.B) {
	f := nnDefaultClos(b)
	ps, err := NewPerSwitch(NewModel(nnNewRand(1)), f, FeatureConfig{})
	if err != nil {
		b.Fatal(err)
	}
	tel := nnBenchTelemetry(f, 2)
	ecn := control.StaticSettings(f)
	b.ReportAllocs()
	for b.Loop() {
		ps.Decide(tel, ecn)
	}
	b.ReportMetric(float64(ps.MessagesPerStep()), "messages/step")
}

// BenchmarkAgentLeafDefault is one leaf's agent's share of a step on the
// default Clos (6 host ports, 2 spine ports): Observe, the K rounds with
// its messages already received, the readout.
func BenchmarkAgentLeafDefault(b *testing.B) {
	f := nnDefaultClos(b)
	leaf0, _ := f.NodeByName("leaf0")
	v, err := NewSwitchView(f, leaf0)
	if err != nil {
		b.Fatal(err)
	}
	ag := mustAgent(b, NewModel(nnNewRand(1)), v)
	full := nnBenchTelemetry(f, 2)
	tel := &control.Telemetry{Interval: full.Interval}
	for _, vp := range v.Ports {
		tel.Ports = append(tel.Ports, full.Ports[vp.Port])
	}
	for _, p := range ag.Hosts() {
		tel.Ports = append(tel.Ports, full.Ports[p])
	}
	h := make([]float32, Hidden)
	b.ReportAllocs()
	for b.Loop() {
		ag.Observe(tel)
		for k := 1; k <= ag.w.shape.K; k++ {
			for _, p := range ag.remote {
				if err := ag.Receive(k, p, h[:ag.msgLen(k)]); err != nil {
					b.Fatal(err)
				}
			}
			if err := ag.Round(k); err != nil {
				b.Fatal(err)
			}
		}
	}
}

// TestAgentFallback: a round computed past its deadline without a
// neighbour's message (RoundFallback) computes exactly as if that
// neighbour had sent again its message of the same round of the previous
// step, or zeros before it ever sent one, and counts the message replaced.
func TestAgentFallback(t *testing.T) {
	f := nnDefaultClos(t)
	m := inferModel(DefaultShape(), 3)
	ps, err := newPerSwitch(m, f, FeatureConfig{}, haveAVX2FMA())
	if err != nil {
		t.Fatal(err)
	}
	leaf, _ := f.NodeByName("leaf0")
	li := int(ps.byNode[leaf])
	r := nnNewRand(9)
	var xs [2][]float64
	var msgs [2]map[[2]int][]float32 // per step: (round, remote index) -> what leaf0 receives
	for s := range xs {
		xs[s] = agentFeatures(r, len(f.Ports)*m.Features)
		msgs[s] = map[[2]int][]float32{}
		agentBegin(ps, xs[s], m.Features)
		for k := 1; k <= m.K; k++ {
			for _, ag := range ps.agents {
				for i := range ag.Sends() {
					from, to, h := ag.Message(k, i)
					if to == leaf {
						j, _ := slices.BinarySearch(ps.agents[li].remote, from)
						msgs[s][[2]int{k, j}] = slices.Clone(h)
					}
				}
			}
			ps.exchange(k)
		}
	}
	local := func(x []float64) []float64 {
		var l []float64
		for _, p := range ps.local[li] {
			l = append(l, x[int(p)*m.Features:int(p+1)*m.Features]...)
		}
		return l
	}
	view := ps.agents[li].view
	remote := ps.agents[li].remote
	// step runs one step of ag on xs[s]; drop names the remote index whose
	// messages do not arrive, and with subst set they come from step sub's.
	step := func(ag *Agent, s, drop, sub int, subst bool) int {
		ag.Begin(local(xs[s]))
		replaced := 0
		for k := 1; k <= m.K; k++ {
			for j, p := range remote {
				h := msgs[s][[2]int{k, j}]
				switch {
				case j == drop && !subst:
					continue
				case j == drop && sub < 0:
					h = make([]float32, len(h))
				case j == drop:
					h = msgs[sub][[2]int{k, j}]
				}
				if err := ag.Receive(k, p, h); err != nil {
					t.Fatal(err)
				}
			}
			n, err := ag.RoundFallback(k)
			if err != nil {
				t.Fatal(err)
			}
			replaced += n
		}
		return replaced
	}
	late, resent := newAgent(m, view, FeatureConfig{}, haveAVX2FMA()), newAgent(m, view, FeatureConfig{}, haveAVX2FMA())
	step(late, 0, -1, 0, false)
	step(resent, 0, -1, 0, false)
	if n := step(late, 1, 0, 0, false); n != m.K {
		t.Errorf("%d messages replaced, want %d", n, m.K)
	}
	if n := step(resent, 1, 0, 0, true); n != 0 {
		t.Errorf("%d messages replaced with every message there", n)
	}
	if !sameBits(late.Q(), resent.Q()) {
		t.Error("a late message is not replaced by the previous step's")
	}
	if sameBits(late.Q(), ps.agents[li].Q()) {
		t.Error("the fallback's Q values are the on-time step's: the test shows nothing")
	}
	fresh, zeros := newAgent(m, view, FeatureConfig{}, haveAVX2FMA()), newAgent(m, view, FeatureConfig{}, haveAVX2FMA())
	step(fresh, 1, 0, 0, false)
	step(zeros, 1, 0, -1, true)
	if !sameBits(fresh.Q(), zeros.Q()) {
		t.Error("a message never received is not replaced by zeros")
	}
}

// TestAgentStep: the step counts Begins from 0, and Reset starts it again.
func TestAgentStep(t *testing.T) {
	f := nnSmallClos(t)
	v, err := NewSwitchView(f, f.Switches()[0])
	if err != nil {
		t.Fatal(err)
	}
	ag := mustAgent(t, NewModel(nnNewRand(1)), v)
	x := make([]float64, (ag.Ports()+len(ag.Hosts()))*NumFeatures)
	for want := range uint32(3) {
		ag.Begin(x)
		if ag.Step() != want {
			t.Errorf("step %d after %d Begins", ag.Step(), want+1)
		}
	}
	ag.Reset()
	ag.Begin(x)
	if ag.Step() != 0 {
		t.Errorf("step %d after Reset and Begin", ag.Step())
	}
}

// mustAgent is NewAgent of m on v with the default feature config.
func mustAgent(tb testing.TB, m *Model, v SwitchView) *Agent {
	tb.Helper()
	ag, err := NewAgent(m, v, FeatureConfig{})
	if err != nil {
		tb.Fatal(err)
	}
	return ag
}

// TestNewAgentErrors: a view without ports, with ports out of order or a
// non-positive rate, and a model whose inputs are not its feature set's
// are refused.
func TestNewAgentErrors(t *testing.T) {
	f := nnDefaultClos(t)
	v, err := NewSwitchView(f, f.Switches()[0])
	if err != nil {
		t.Fatal(err)
	}
	swapped := SwitchView{Switch: v.Switch, Ports: slices.Clone(v.Ports)}
	swapped.Ports[0], swapped.Ports[1] = swapped.Ports[1], swapped.Ports[0]
	zero := SwitchView{Switch: v.Switch, Ports: slices.Clone(v.Ports)}
	zero.Ports[2].Rate = 0
	odd := NewModelShape(Shape{Features: 7, Hidden: 24, K: 2, Actions: NumActions}, nnNewRand(1))
	for _, tc := range []struct {
		name string
		m    *Model
		v    SwitchView
		want string
	}{
		{"empty", NewModel(nnNewRand(1)), SwitchView{Switch: 3}, "no ports"},
		{"order", NewModel(nnNewRand(1)), swapped, "want increasing PortIDs"},
		{"rate", NewModel(nnNewRand(1)), zero, "has rate 0"},
		{"inputs", odd, v, "needs a model of 9 features (the paper set)"},
	} {
		if _, err := NewAgent(tc.m, tc.v, FeatureConfig{}); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want %q", tc.name, err, tc.want)
		}
	}
}
