package gnn

import (
	"context"
	"slices"
	"testing"

	"graphcc/control"
	"graphcc/replay"
	"graphcc/topo"
)

// tinyEpisode is a 2-leaf, 1-spine fabric with 2 hosts per leaf where both
// hosts of leaf 1 send long flows to one host of leaf 0: the leaf's port to
// that host is the only congested port.
func tinyEpisode(t testing.TB) func(uint64) (*topo.Fabric, []replay.Flow, error) {
	c := topo.DefaultClos()
	c.Leaves, c.Spines, c.HostsPerLeaf = 2, 1, 2
	f, err := topo.Clos(c)
	if err != nil {
		t.Fatal(err)
	}
	return func(seed uint64) (*topo.Fabric, []replay.Flow, error) {
		var flows []replay.Flow
		for _, src := range []topo.NodeID{2, 3} {
			flows = append(flows, replay.Flow{Src: src, Dst: 0, PG: replay.DefaultPG, DPort: replay.DPortBackground,
				Size: 40_000_000, Start: 2 * topo.Second})
		}
		return f, flows, nil
	}
}

func tinyTrain(kind string, seed uint64, ep func(uint64) (*topo.Fabric, []replay.Flow, error)) TrainConfig {
	c := DefaultTrainConfig()
	c.Kind = kind
	c.Episode = ep
	c.Episodes = 60
	c.EpisodeTime = 5 * topo.Millisecond
	c.Warmup = 100
	c.Updates = 40
	c.TargetEvery = 50
	c.Seed = seed
	c.Workers = 2
	c.Params = replay.DefaultParams()
	c.Params.Window = -1 // no window: ECN alone decides the queue
	return c
}

// TestTrainFindsLowThresholds trains on a fabric with one congested port,
// where the reward (short queue, full link) is highest with the lowest
// marking thresholds, and checks the greedy policy picks them there.
func TestTrainFindsLowThresholds(t *testing.T) {
	if testing.Short() {
		t.Skip("trains a model")
	}
	ep := tinyEpisode(t)
	for _, kind := range []string{"graphcc"} {
		res, err := Train(context.Background(), tinyTrain(kind, 1, ep))
		if err != nil {
			t.Fatal(err)
		}
		f, flows, _ := ep(0)
		var port topo.PortID = -1
		for _, p := range f.Agents() {
			if f.Ports[p].Dst == 0 {
				port = p
			}
		}
		var acts []int
		if kind == "graphcc" {
			pol := NewGraphCC(res.Model, f, FeatureConfig{})
			run(t, f, flows, pol)
			acts = pol.LastActions()
		} else {
			pol, err := NewACCFrom(res.ACC, f, FeatureConfig{})
			if err != nil {
				t.Fatal(err)
			}
			run(t, f, flows, pol)
			acts = pol.LastActions()
		}
		i := slices.Index(f.Agents(), port)
		kmin, kmax, pmax := ActionLevels(acts[i])
		last := res.Stats[len(res.Stats)-1]
		t.Logf("%s: bottleneck action kmin %d kmax %d pmax %v; first reward %.3f last %.3f loss %.4f",
			kind, kmin, kmax, pmax, res.Stats[0].MeanReward, last.MeanReward, last.Loss)
		if kmax > 64 {
			t.Errorf("%s: the congested port's learned kmax is %d KB, want at most 64", kind, kmax)
		}
	}
}

// run simulates 5 ms of flows under pol.
func run(t *testing.T, f *topo.Fabric, flows []replay.Flow, pol control.Policy) {
	t.Helper()
	p := replay.DefaultParams()
	p.Window = -1
	if _, err := replay.Run(replay.Config{Fabric: f, Flows: flows, Params: p, Policy: pol, Until: 2*topo.Second + 5*topo.Millisecond}); err != nil {
		t.Fatal(err)
	}
}

// TestTrainIsDeterministic trains both kinds twice with one seed and once
// with another.
func TestTrainIsDeterministic(t *testing.T) {
	ep := tinyEpisode(t)
	for _, kind := range []string{"graphcc", "acc"} {
		params := func(seed uint64) []float64 {
			c := tinyTrain(kind, seed, ep)
			c.Episodes, c.Warmup, c.Updates = 4, 50, 5
			res, err := Train(context.Background(), c)
			if err != nil {
				t.Fatal(err)
			}
			if kind == "graphcc" {
				return res.Model.Params
			}
			return newACCNet(res.ACC, nil).flat
		}
		a, b, c := params(1), params(1), params(2)
		if !slices.Equal(a, b) {
			t.Errorf("%s: one seed trained two different models", kind)
		}
		if slices.Equal(a, c) {
			t.Errorf("%s: two seeds trained the same model", kind)
		}
	}
}

func TestTrainConfigErrors(t *testing.T) {
	ep := tinyEpisode(t)
	for _, mod := range []func(*TrainConfig){
		func(c *TrainConfig) { c.Kind = "dqn" },
		func(c *TrainConfig) { c.Episode = nil },
		func(c *TrainConfig) { c.Gamma = 1.5 },
		func(c *TrainConfig) { c.Batch = 10; c.Buffer = 5 },
		func(c *TrainConfig) { c.EpsStart = 2 },
	} {
		c := tinyTrain("graphcc", 1, ep)
		mod(&c)
		if _, err := Train(context.Background(), c); err == nil {
			t.Errorf("config %+v accepted", c)
		}
	}
}
