package learn

import (
	"bytes"
	"context"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"graphcc/gnn"
	"graphcc/scenario"
	"graphcc/topo"
	"graphcc/trace"
)

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
			conf := func() Config {
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
			if kind == "acc" && !slices.Equal(a.ACCPorts, gnn.PortNames(fixed)) {
				t.Errorf("ACC's ports %v, want the fixed fabric's %v", a.ACCPorts, gnn.PortNames(fixed))
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
	n0, n1 := gnn.NewMLPNet(gnn.ACCNumFeatures, gnn.ACCHidden, gnn.NumActions, r), gnn.NewMLPNet(gnn.ACCNumFeatures, gnn.ACCHidden, gnn.NumActions, r)
	c := DefaultConfig()
	c.Workers, c.Batch = 2, 8
	// one port of ACC features per agent: 2 "ports" of NumFeatures each
	const w = gnn.ACCNumFeatures / gnn.NumFeatures
	pair := NewReplayBuffer(20, 2*w, 2)
	lone := NewReplayBuffer(20, w, 1)
	for range 20 {
		x, xn := make([]float64, 2*gnn.ACCNumFeatures), make([]float64, 2*gnn.ACCNumFeatures)
		for i := range x {
			x[i], xn[i] = r.Float64(), r.Float64()
		}
		a, rew := r.IntN(gnn.NumActions), r.Float64()
		pair.Add(x, []int{a, NoAction}, []float64{rew, 0}, xn)
		lone.Add(x[:gnn.ACCNumFeatures], []int{a}, []float64{rew}, xn[:gnn.ACCNumFeatures])
	}
	learn := func(nets []*gnn.MLPNet, agents []topo.PortID, buf *ReplayBuffer) ([]float64, float64) {
		on := newACCNet(nets, agents, nil)
		tg := on.clone()
		l := newLearner(on, tg, c, buf.FeatureLen(), buf.Agents(), 0)
		adam := NewAdam(len(on.params()), c.LR)
		loss := l.update(buf, rand.New(rand.NewPCG(9, 9)), adam)
		return on.params(), loss
	}
	pp, pl := learn([]*gnn.MLPNet{n0, n1}, []topo.PortID{0, 1}, pair)
	lp, ll := learn([]*gnn.MLPNet{n0}, []topo.PortID{0}, lone)
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
