package policy

import (
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"sync"

	"graphcc/control"
	"graphcc/gnn"
	"graphcc/learn"
	"graphcc/models"
	"graphcc/scenario"
	"graphcc/topo"
)

// GraphCC is the learned GraphCC policy, unfloored, of model: one of the
// models built into the binary by its name (GraphCCBare, the host-head
// model of package models; GraphCCBareSwitch, the switch-only
// gnn.EmbeddedModel) or the path of a model file. The model is loaded
// once; the runs share its weights, read-only, each with its own
// workspace.
func GraphCC(model string) (Factory, error) {
	m, err := loadGraphCC(model)
	if err != nil {
		return nil, err
	}
	return func(f *topo.Fabric, _ scenario.Scenario, _ uint64) (control.Policy, []control.ECN, error) {
		g, err := gnn.NewGraphCC(m, f, gnn.FeatureConfig{})
		if err != nil {
			return nil, nil, err
		}
		return g, nil, nil
	}, nil
}

// loadGraphCC loads the GraphCC model GraphCC's model names and checks
// that a policy can run it.
func loadGraphCC(model string) (*gnn.Model, error) {
	var file *gnn.File
	var err error
	switch model {
	case "":
		return nil, fmt.Errorf("want a model: %s, %s or the path of a model file", GraphCCBare, GraphCCBareSwitch)
	case GraphCCBare:
		file, err = gnn.Unmarshal(models.GraphCC(), "built-in "+models.GraphCCFile, gnn.GraphCCExpect())
	case GraphCCBareSwitch:
		file, err = gnn.EmbeddedFile()
	default:
		file, err = gnn.Load(model, gnn.GraphCCExpect())
	}
	if err != nil {
		return nil, err
	}
	m, err := file.Model()
	if err == nil {
		err = gnn.CheckPolicyModel(m)
	}
	return m, err
}

// ACCFile is the ACC baseline of agents trained by graphcc train --kind
// acc, from the model file at path, for a fabric of the same shape.
func ACCFile(path string) (Factory, error) {
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

// ACC is the ACC baseline trained on the spot: on the first run of each
// scenario it trains agents on that scenario (ACCTrainConfig, under ctx),
// and that scenario's runs share them. It needs a named scenario to train
// on: a run of scenario "" or "sim" fails.
func ACC(ctx context.Context, env Env) Factory {
	episodes := env.ACCEpisodes
	if episodes == 0 {
		episodes = DefaultACCEpisodes
	}
	if ctx == nil {
		ctx = context.Background()
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
		t.once.Do(func() { t.nets, t.ports, t.err = trainACC(ctx, env, sc, episodes) })
		if t.err != nil {
			return nil, nil, fmt.Errorf("training ACC on %s: %w", sc.Name, t.err)
		}
		a, err := gnn.NewACCFrom(cloneNets(t.nets), t.ports, f, gnn.FeatureConfig{})
		return a, nil, err
	}
}

type accOnce struct {
	once  sync.Once
	nets  []*gnn.MLPNet
	ports []string
	err   error
}

// trainACC trains ACC agents on scenario sc (ACCTrainConfig).
func trainACC(ctx context.Context, env Env, sc scenario.Scenario, episodes int) ([]*gnn.MLPNet, []string, error) {
	c, err := ACCTrainConfig(sc, episodes, env)
	if err != nil {
		return nil, nil, err
	}
	if env.Log != nil {
		env.Log.Info("training ACC", "scenario", sc.Name, "episodes", episodes, "seed", c.Seed)
	}
	res, err := learn.Train(ctx, c)
	if err != nil {
		return nil, nil, err
	}
	return res.ACC, res.ACCPorts, nil
}

// ACCTrainConfig is how ACC trains on scenario sc for episodes: the
// default settings, a seed derived from the scenario's name (never an
// evaluation seed), env's simulator, and an agent for every switch port of
// the scenario's fabric before its random failures (those are drawn per
// seed: a failed port's agent sits the episode out).
func ACCTrainConfig(sc scenario.Scenario, episodes int, env Env) (learn.Config, error) {
	h := fnv.New64a()
	h.Write([]byte("acc/" + sc.Name))
	c := learn.DefaultConfig()
	c.Kind, c.Episodes, c.Seed, c.Episode = "acc", episodes, h.Sum64()%1000, sc.Build
	c.Params = env.Params
	if env.Interval > 0 {
		c.Interval = env.Interval
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

// The ways a GraphCC policy's step can run (sim --agents).
const (
	AgentsCentral   = "central"          // one computation over the whole fabric (gnn.GraphCC)
	AgentsPerSwitch = "per-switch"       // one agent per switch, messages as packets on the simulator's links (gnn.InBand)
	AgentsIdeal     = "per-switch-ideal" // one agent per switch, messages delivered within the step (gnn.PerSwitch)
)

// WithAgents returns p run as agents says: p itself for AgentsCentral,
// and for AgentsPerSwitch (with cfg) or AgentsIdeal the per-switch
// decomposition of p, which must be a GraphCC policy (gnn.GraphCC) on f,
// or a GraphCC model held to a fixed base (a gnn.Floor whose base is
// static, edge or tuned constants, with or without the hosts' constants of
// +dcqcn:; FixedBase): each switch's agent then gates its own ports and
// hosts (gnn.NewPerSwitchFloor, gnn.NewInBandFloor). Any other value is an
// error, and so is a floor whose base changes over time (sched, react,
// hostreact, acc), named.
func WithAgents(p control.Policy, f *topo.Fabric, agents string, cfg gnn.InBandConfig) (control.Policy, error) {
	if agents == AgentsCentral {
		return p, nil
	}
	if agents != AgentsPerSwitch && agents != AgentsIdeal {
		return nil, fmt.Errorf("unknown agents %q (want %s, %s or %s)", agents, AgentsCentral, AgentsPerSwitch, AgentsIdeal)
	}
	if fl, ok := p.(*gnn.Floor); ok {
		if err := FixedBase(fl); err != nil {
			return nil, err
		}
		if agents == AgentsIdeal {
			return gnn.NewPerSwitchFloor(fl, f)
		}
		return gnn.NewInBandFloor(fl, f, cfg)
	}
	g, ok := p.(*gnn.GraphCC)
	if !ok {
		return nil, fmt.Errorf("per-switch agents run a graphcc policy or a floor over a fixed base, not %T", p)
	}
	if agents == AgentsIdeal {
		return gnn.NewPerSwitch(g.Model(), f, g.Featurizer().Config())
	}
	return gnn.NewInBand(g.Model(), f, g.Featurizer().Config(), cfg)
}

// FixedBase checks that fl's base is a fixed configuration, which per-switch
// agents can hold to: settings that never change (static, edge, tuned
// constants: control.Static from its starting settings), with or without
// fixed hosts' constants (+dcqcn:). A base that changes its settings or
// the hosts' constants over time is an error naming it: each agent would
// need the base's decision of its ports every interval, which only a
// central step has.
func FixedBase(fl *gnn.Floor) error {
	b := fl.Base()
	if h, ok := b.(hostTuned); ok {
		b = h.Policy
	}
	if _, ok := b.(control.Static); ok {
		return nil
	}
	return fmt.Errorf("per-switch agents hold a floor to a fixed base (static, edge, tuned constants, +dcqcn:), not to %s, whose settings change over time", baseName(b))
}

// baseName names a floor's base policy by its spec's name.
func baseName(p control.Policy) string {
	switch p.(type) {
	case *schedPolicy:
		return "sched (a schedule of settings)"
	case *reactive:
		return "react"
	case *hostReact:
		return "hostreact"
	case *gnn.ACC:
		return "acc"
	case *gnn.GraphCC, *gnn.Floor:
		return "a graphcc model"
	}
	return fmt.Sprintf("a %T", p)
}
