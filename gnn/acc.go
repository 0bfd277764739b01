package gnn

import (
	"fmt"
	"math/rand/v2"

	"graphcc/control"
	"graphcc/topo"
)

// ACCHidden is the hidden width of each ACC agent's Q-network.
const ACCHidden = 24

// ACC is the ACC baseline (Yan et al., SIGCOMM 2021) as DESIGN.md specifies
// it for a like-for-like comparison: one independent double-DQN agent per
// switch egress port, no parameter sharing and no message passing, on ACC's
// state (queue, tx rate, ECN-marked tx rate and the current ECN setting,
// with 2 past steps: ACCNumFeatures inputs) and GraphCC's 120 actions and
// reward. Nets[i] belongs to Agents()[i]. An ACC is tied to the fabric it
// was made for.
type ACC struct {
	Nets []*MLPNet

	fabric  *topo.Fabric
	agents  []topo.PortID
	ws      []*MLPWorkspace
	fz      *Featurizer
	state   []float64 // ports×ACCNumFeatures
	prev    []float64
	actions []int
	rewards []float64
	started bool

	// Epsilon is the per-agent probability of a random action (0 = greedy).
	Epsilon float64
	// Shape and WeightQ define the reward (defaults Linear, 0.7).
	Shape   RewardShape
	WeightQ float64
	// OnStep, if set, receives every transition (see Explorer.OnStep); the
	// states are ports×ACCNumFeatures.
	OnStep func(prev []float64, actions []int, rewards []float64, next []float64)
	rng    *rand.Rand
}

// NewACC returns ACC agents with fresh networks for every switch port of f,
// initialised from r.
func NewACC(f *topo.Fabric, c FeatureConfig, r *rand.Rand) *ACC {
	agents := f.Agents()
	nets := make([]*MLPNet, len(agents))
	for i := range nets {
		nets[i] = NewMLPNet(ACCNumFeatures, ACCHidden, NumActions, r)
	}
	a, err := NewACCFrom(nets, f, c)
	if err != nil {
		panic(err) // the shapes are ours
	}
	return a
}

// NewACCFrom returns ACC agents using nets (one per switch port of f, in
// increasing port order), as loaded from a model file.
func NewACCFrom(nets []*MLPNet, f *topo.Fabric, c FeatureConfig) (*ACC, error) {
	agents := f.Agents()
	if len(nets) != len(agents) {
		return nil, fmt.Errorf("acc: %d agent networks for a fabric with %d switch ports", len(nets), len(agents))
	}
	for i, n := range nets {
		if n.Layer.In != ACCNumFeatures || n.Layer.Out != NumActions {
			return nil, fmt.Errorf("acc: agent %d network is %d→%d, want %d→%d", i, n.Layer.In, n.Layer.Out, ACCNumFeatures, NumActions)
		}
	}
	a := &ACC{
		Nets: nets, fabric: f, agents: agents, fz: NewFeaturizer(f, c),
		state:   make([]float64, len(f.Ports)*ACCNumFeatures),
		prev:    make([]float64, len(f.Ports)*ACCNumFeatures),
		actions: make([]int, len(agents)),
		rewards: make([]float64, len(agents)),
		Shape:   Linear, WeightQ: DefaultWeightQ,
		rng: rand.New(rand.NewPCG(1, 0x616363)),
	}
	a.ws = make([]*MLPWorkspace, len(nets))
	for i, n := range nets {
		a.ws[i] = NewMLPWorkspace(n, 1)
	}
	return a, nil
}

// Seed resets the exploration random source.
func (a *ACC) Seed(seed uint64) { a.rng = rand.New(rand.NewPCG(seed, 0x616363)) }

// Agents returns the switch ports, in the order of Nets.
func (a *ACC) Agents() []topo.PortID { return a.agents }

// Reset forgets the telemetry history, for a new episode.
func (a *ACC) Reset() {
	a.fz.Reset()
	a.started = false
}

// LastActions returns the action each agent chose at the last Decide.
func (a *ACC) LastActions() []int { return a.actions }

// Decide observes the interval, lets every agent choose its port's setting
// and reports the transition to OnStep.
func (a *ACC) Decide(t *control.Telemetry, ecn []control.ECN) {
	a.fz.Observe(t)
	copy(a.prev, a.state)
	a.fz.ACCFeatures(a.state, ecn)
	if a.started && a.OnStep != nil {
		Reward(a.rewards, a.fz, a.agents, a.Shape, a.WeightQ)
		a.OnStep(a.prev, a.actions, a.rewards, a.state)
	}
	for i, p := range a.agents {
		if a.Epsilon > 0 && a.rng.Float64() < a.Epsilon {
			a.actions[i] = a.rng.IntN(NumActions)
		} else {
			row := a.state[int(p)*ACCNumFeatures : (int(p)+1)*ACCNumFeatures]
			a.Nets[i].Greedy(a.ws[i], row, a.actions[i:i+1])
		}
		ecn[p] = Action(a.actions[i], a.fabric.Ports[p].Rate)
	}
	a.started = true
}
