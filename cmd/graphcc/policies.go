package main

import (
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"log/slog"
	"sync"

	"graphcc/control"
	"graphcc/gnn"
	"graphcc/policy"
	"graphcc/replay"
	"graphcc/scenario"
	"graphcc/topo"
)

// policyEnv is what building a policy may need besides its spec: a context
// and settings for policies that train before they run (ACC).
type policyEnv struct {
	ctx         context.Context
	log         *slog.Logger
	accEpisodes int // episodes ACC trains on each scenario; 0: the default
	// params and interval are the simulator ACC trains in when it trains
	// on the spot (zero: replay.DefaultParams, control.DefaultInterval).
	params   replay.Params
	interval int64
}

// defaultACCEpisodes is how long ACC trains on each evaluation scenario.
const defaultACCEpisodes = 100

// learnedPolicies are the registry entries of the learned policies.
func learnedPolicies(env policyEnv) []policyDef {
	return []policyDef{
		{
			name:  "graphcc",
			usage: "graphcc[:MODEL]",
			help:  "graphcc: the GraphCC model built into the binary; graphcc:FILE: a model trained by graphcc train",
			build: func(args string) (policy.Factory, error) { return buildGraphCC(args) },
		},
		{
			name:  "acc",
			usage: "acc[:MODEL]",
			help: "acc: ACC agents trained on each evaluation scenario first (graphcc eval only; --acc-episodes); " +
				"acc:FILE: ACC agents trained by graphcc train --kind acc, for a fabric of the same shape",
			build: func(args string) (policy.Factory, error) { return buildACC(env, args) },
		},
	}
}

// buildGraphCC loads the model (the embedded one without a path) once; the
// runs share its weights, read-only, each with its own workspace.
func buildGraphCC(path string) (policy.Factory, error) {
	var m *gnn.Model
	var err error
	if path == "" {
		m, err = gnn.EmbeddedModel()
	} else {
		var file *gnn.File
		if file, err = gnn.Load(path, gnn.GraphCCExpect()); err == nil {
			m, err = file.Model()
		}
	}
	if err != nil {
		return nil, err
	}
	return func(f *topo.Fabric, _ scenario.Scenario, _ uint64) (control.Policy, []control.ECN, error) {
		return gnn.NewGraphCC(m, f, gnn.FeatureConfig{}), nil, nil
	}, nil
}

// buildACC loads ACC agents from a file, or trains them on each scenario
// (once per scenario, shared by that scenario's runs) from seeds derived
// from the scenario's name, never the evaluation's.
func buildACC(env policyEnv, path string) (policy.Factory, error) {
	if path != "" {
		file, err := gnn.Load(path, gnn.ACCExpect())
		if err != nil {
			return nil, err
		}
		nets, ports, err := file.MLPNets()
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		return func(f *topo.Fabric, _ scenario.Scenario, _ uint64) (control.Policy, []control.ECN, error) {
			a, err := gnn.NewACCFrom(cloneNets(nets), ports, f, gnn.FeatureConfig{})
			if err != nil {
				return nil, nil, fmt.Errorf("%s: %w", path, err)
			}
			return a, nil, nil
		}, nil
	}
	episodes := env.accEpisodes
	if episodes == 0 {
		episodes = defaultACCEpisodes
	}
	var mu sync.Mutex
	trained := map[string]*accOnce{}
	return func(f *topo.Fabric, sc scenario.Scenario, _ uint64) (control.Policy, []control.ECN, error) {
		if sc.Name == "" || sc.Name == "sim" {
			return nil, nil, errors.New("acc without a model file trains on an evaluation scenario: use graphcc eval, or acc:FILE")
		}
		mu.Lock()
		t := trained[sc.Name]
		if t == nil {
			t = &accOnce{}
			trained[sc.Name] = t
		}
		mu.Unlock()
		t.once.Do(func() { t.nets, t.ports, t.err = trainACC(env, sc, episodes) })
		if t.err != nil {
			return nil, nil, fmt.Errorf("training ACC on %s: %w", sc.Name, t.err)
		}
		a, err := gnn.NewACCFrom(cloneNets(t.nets), t.ports, f, gnn.FeatureConfig{})
		return a, nil, err
	}, nil
}

type accOnce struct {
	once  sync.Once
	nets  []*gnn.MLPNet
	ports []string
	err   error
}

// trainACC trains ACC agents on scenario sc with a seed derived from its
// name.
func trainACC(env policyEnv, sc scenario.Scenario, episodes int) ([]*gnn.MLPNet, []string, error) {
	c, err := accTrainConfig(env, sc, episodes)
	if err != nil {
		return nil, nil, err
	}
	if env.log != nil {
		env.log.Info("training ACC", "scenario", sc.Name, "episodes", episodes, "seed", c.Seed)
	}
	ctx := env.ctx
	if ctx == nil {
		ctx = context.Background()
	}
	res, err := gnn.Train(ctx, c)
	if err != nil {
		return nil, nil, err
	}
	return res.ACC, res.ACCPorts, nil
}

// accTrainConfig is how ACC trains on scenario sc: the default settings, a
// seed derived from the scenario's name, env's simulator, and an agent for
// every switch port of the scenario's fabric before its random failures
// (those are drawn per seed: a failed port's agent sits the episode out).
func accTrainConfig(env policyEnv, sc scenario.Scenario, episodes int) (gnn.TrainConfig, error) {
	h := fnv.New64a()
	h.Write([]byte("acc/" + sc.Name))
	c := gnn.DefaultTrainConfig()
	c.Kind, c.Episodes, c.Seed, c.Episode = "acc", episodes, h.Sum64()%1000, sc.Build
	c.Params = env.params
	if env.interval > 0 {
		c.Interval = env.interval
	}
	var err error
	c.Fabric, err = sc.FixedFabric()
	return c, err
}

// cloneNets copies nets (an ACC instance owns its networks' workspaces, not
// their weights, but a copy keeps runs fully independent).
func cloneNets(nets []*gnn.MLPNet) []*gnn.MLPNet {
	out := make([]*gnn.MLPNet, len(nets))
	for i, n := range nets {
		out[i] = n.Clone()
	}
	return out
}
