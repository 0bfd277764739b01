package gnn

import (
	"bytes"
	"context"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"graphcc/scenario"
	"graphcc/topo"
	"graphcc/trace"
)

// failFabric is the default Clos and the same Clos without leaf0-spine0.
func failFabric(t *testing.T) (base, failed *topo.Fabric) {
	t.Helper()
	base, err := topo.Clos(topo.DefaultClos())
	if err != nil {
		t.Fatal(err)
	}
	if failed, err = base.FailLinks("leaf0-spine0"); err != nil {
		t.Fatal(err)
	}
	return base, failed
}

// TestACCBindsAgentsByPort checks that an ACC's agents follow their ports'
// names, not their indices: on a fabric with a failed link every port keeps
// its own agent (the ids after the failed link shift), the failed ports'
// agents sit out, and a fabric with a port no agent is of is refused.
func TestACCBindsAgentsByPort(t *testing.T) {
	base, failed := failFabric(t)
	acc := NewACC(base, FeatureConfig{}, nnNewRand(1))
	if !slices.Equal(acc.Ports(), PortNames(base)) || len(acc.Nets) != len(base.Agents()) {
		t.Fatalf("ports %v, want the fabric's switch ports %v", acc.Ports(), PortNames(base))
	}
	on, err := NewACCFrom(acc.Nets, acc.Ports(), failed, FeatureConfig{})
	if err != nil {
		t.Fatal(err)
	}
	if len(on.Agents()) != len(base.Agents())-2 {
		t.Fatalf("%d agents act on the failed fabric, want %d", len(on.Agents()), len(base.Agents())-2)
	}
	shifted := 0
	used := map[int]bool{}
	for i, p := range on.Agents() {
		j := on.AgentNets()[i]
		if got, want := acc.Ports()[j], failed.PortName(p); got != want {
			t.Errorf("port %s is served by the agent of %s", want, got)
		}
		if j != i {
			shifted++
		}
		used[j] = true
	}
	if shifted == 0 {
		t.Error("no port id shifted: the test does not tell names from indices")
	}
	for j, name := range acc.Ports() {
		idle := name == "leaf0->spine0" || name == "spine0->leaf0"
		if used[j] == idle {
			t.Errorf("agent of %s: acting %v, want %v", name, used[j], !idle)
		}
	}

	bigger := topo.DefaultClos()
	bigger.Leaves = 5
	big, err := topo.Clos(bigger)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := NewACCFrom(acc.Nets, acc.Ports(), big, FeatureConfig{}); err == nil || !strings.Contains(err.Error(), "has no agent") {
		t.Errorf("ACC of a 4-leaf fabric on a 5-leaf one: %v", err)
	}
	if _, err := NewACCFrom(acc.Nets, acc.Ports()[1:], base, FeatureConfig{}); err == nil {
		t.Error("fewer port names than networks accepted")
	}
	dup := slices.Clone(acc.Ports())
	dup[1] = dup[0]
	if _, err := NewACCFrom(acc.Nets, dup, base, FeatureConfig{}); err == nil || !strings.Contains(err.Error(), "both of port") {
		t.Errorf("two agents of one port: %v", err)
	}
}

// failEpisodes is the training scenario cut short, with one random
// leaf-spine failure per seed.
func failEpisodes(t *testing.T) (scenario.Scenario, func(uint64) (*topo.Fabric, []trace.Flow, error)) {
	sc := scenario.Default()
	sc.FailRandom = 1
	sc.Gen.Duration = 300 * topo.Microsecond
	return sc, sc.Build
}

// TestTrainOnFailures trains ACC and GraphCC where every episode fails
// another link: ACC's agents are the fixed fabric's ports, GraphCC's
// transitions keep their fabric (the replay buffer's tags, and the
// checkpoint's), a resumed run is the whole run, and one seed trains one
// network.
func TestTrainOnFailures(t *testing.T) {
	sc, ep := failEpisodes(t)
	fixed, err := sc.FixedFabric()
	if err != nil {
		t.Fatal(err)
	}
	for _, kind := range []string{"acc", "graphcc"} {
		t.Run(kind, func(t *testing.T) {
			conf := func() TrainConfig {
				c := tinyTrain(kind, 3, ep)
				c.Episodes, c.Warmup, c.Updates, c.EpisodeTime = 4, 10, 3, 2*topo.Millisecond
				c.Fabric = fixed
				return c
			}
			c := conf()
			c.CheckpointEvery = 2
			a, files, err := saved(t, context.Background(), c)
			if err != nil {
				t.Fatal(err)
			}
			if len(files) != 2 {
				t.Fatalf("%d checkpoints, want 2", len(files))
			}
			ck, err := ReadCheckpoint(bytes.NewReader(files[1]))
			if err != nil {
				t.Fatal(err)
			}
			// Every transition is of a fabric that lacks one link, and
			// its two ports' agents sit out: NoAction in the buffer.
			tags := ck.Buffer.Fabrics()
			if len(tags) < 2 || tags[0] != "" {
				t.Fatalf("fabric tags %q, want \"\" and at least one failed link", tags)
			}
			idle, used := 0, map[int]bool{}
			acts := make([]int, ck.Buffer.Agents())
			for i := range ck.Buffer.Len() {
				used[ck.Buffer.Fabric(i)] = true
				ck.Buffer.Actions(i, acts)
				for _, x := range acts {
					if x == NoAction {
						idle++
					}
				}
			}
			if want := 2 * ck.Buffer.Len(); idle != want {
				t.Errorf("%d idle agent-steps in %d transitions, want 2 per transition (one failed link)", idle, ck.Buffer.Len())
			}
			if used[0] || len(used) != len(tags)-1 {
				t.Errorf("transitions of fabrics %v, want every failed fabric of %q and never the whole", used, tags)
			}
			for _, tag := range tags[1:] {
				if _, ok := fixed.LinkByName(tag); !ok || !strings.HasPrefix(tag, "leaf") {
					t.Errorf("fabric tag %q is not one leaf-spine link", tag)
				}
			}
			if kind == "acc" && !slices.Equal(a.ACCPorts, PortNames(fixed)) {
				t.Errorf("ACC's ports %v, want the fixed fabric's %v", a.ACCPorts, PortNames(fixed))
			}
			b, err := Train(context.Background(), conf())
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(trained(a), trained(b)) {
				t.Error("one seed trained two different networks")
			}
			first, err := ReadCheckpoint(bytes.NewReader(files[0]))
			if err != nil {
				t.Fatal(err)
			}
			r := conf()
			r.Resume = first
			resumed, err := Train(context.Background(), r)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(trained(resumed), trained(a)) {
				t.Error("the run resumed after 2 episodes differs from the whole run")
			}
		})
	}
}

// TestUpdateSkipsIdleAgents: a minibatch's loss and gradient are the mean
// over the agents that acted. Two ACC agents, the second idle in every
// transition, learn exactly as the first would alone.
func TestUpdateSkipsIdleAgents(t *testing.T) {
	r := nnNewRand(4)
	n0, n1 := NewMLPNet(ACCNumFeatures, ACCHidden, NumActions, r), NewMLPNet(ACCNumFeatures, ACCHidden, NumActions, r)
	c := DefaultTrainConfig()
	c.Workers, c.Batch = 2, 8
	// one port of ACC features per agent: 2 "ports" of NumFeatures each
	const w = ACCNumFeatures / NumFeatures
	pair := NewReplayBuffer(20, 2*w, 2)
	lone := NewReplayBuffer(20, w, 1)
	for range 20 {
		x, xn := make([]float64, 2*ACCNumFeatures), make([]float64, 2*ACCNumFeatures)
		for i := range x {
			x[i], xn[i] = r.Float64(), r.Float64()
		}
		a, rew := r.IntN(NumActions), r.Float64()
		pair.Add(x, []int{a, NoAction}, []float64{rew, 0}, xn)
		lone.Add(x[:ACCNumFeatures], []int{a}, []float64{rew}, xn[:ACCNumFeatures])
	}
	learn := func(nets []*MLPNet, agents []topo.PortID, buf *ReplayBuffer) ([]float64, float64) {
		on := newACCNet(nets, agents, nil)
		tg := on.clone()
		l := newLearner(on, tg, c, buf.FeatureLen(), buf.Agents(), 0)
		adam := NewAdam(len(on.params()), c.LR)
		loss := l.update(buf, rand.New(rand.NewPCG(9, 9)), adam)
		return on.params(), loss
	}
	pp, pl := learn([]*MLPNet{n0, n1}, []topo.PortID{0, 1}, pair)
	lp, ll := learn([]*MLPNet{n0}, []topo.PortID{0}, lone)
	if pl != ll || pl == 0 {
		t.Errorf("loss with an idle agent %v, alone %v", pl, ll)
	}
	if !slices.Equal(pp[:len(lp)], lp) {
		t.Error("the acting agent learnt otherwise beside an idle one")
	}
	if !slices.Equal(pp[len(lp):], n1.Params) {
		t.Error("the idle agent's network changed")
	}
}
