package gnn

import (
	"fmt"
	"math/rand/v2"
	"slices"

	"graphcc/control"
	"graphcc/topo"
)

// GraphCC is the GraphCC policy on one fabric: every control interval it
// turns the telemetry into features, runs the message-passing Q-network and
// gives every agent port the ECN setting of its greedy action (Action at the
// port's rate). It is a control.Policy for the simulator and the testbed
// alike; Decide does not allocate.
//
// Decide runs the model's float32 fast path (Inference), on a snapshot of
// the model's parameters taken by NewGraphCC, Reset and Refresh: parameters
// changed in place (training) take effect at the next of those.
//
// Like every control.Policy it serves one fabric run at a time; call Reset
// before reusing it for a new run, so that the feature history starts from
// zeros again.
type GraphCC struct {
	m       *Model
	inf     *Inference
	fz      *Featurizer
	agents  []topo.PortID
	rates   []int64 // per agent, bps
	actions []int   // per agent: the action of the last Decide
}

// NewGraphCC returns the GraphCC policy of model m on fabric f, with the
// features of m's feature set (m.FeatureSet) normalized by c. It panics if
// m's inputs or outputs do not match its feature set and the action table.
func NewGraphCC(m *Model, f *topo.Fabric, c FeatureConfig) *GraphCC {
	if m.Features != m.FeatureSet.Len() || m.Actions != NumActions {
		panic(fmt.Sprintf("gnn: GraphCC policy needs a model of %d features (the %s set) and %d actions, got %d and %d",
			m.FeatureSet.Len(), m.FeatureSet, NumActions, m.Features, m.Actions))
	}
	inf := NewInference(m, f.Graph(), 0)
	agents := inf.Agents()
	if !slices.Equal(agents, f.Agents()) {
		panic("gnn: the inference's agents are not the fabric's")
	}
	g := &GraphCC{
		m: m, inf: inf, fz: NewFeaturizerSet(f, m.FeatureSet, c), agents: agents,
		rates:   make([]int64, len(agents)),
		actions: make([]int, len(agents)),
	}
	for i, p := range agents {
		g.rates[i] = f.Ports[p].Rate
	}
	return g
}

// Decide observes t, picks every agent's greedy action and writes its
// setting into ecn.
func (g *GraphCC) Decide(t *control.Telemetry, ecn []control.ECN) {
	g.fz.Observe(t)
	g.inf.Greedy(g.fz.Features(), g.actions)
	g.apply(ecn)
}

// apply writes the setting of every agent's action into ecn.
func (g *GraphCC) apply(ecn []control.ECN) {
	checkLen("ECN settings", len(ecn), g.fz.ports)
	for i, p := range g.agents {
		ecn[p] = g.m.ActionSet.Setting(g.actions[i], g.rates[i])
	}
}

// Reset forgets the feature history, for a new run, and re-snapshots the
// model's parameters.
func (g *GraphCC) Reset() {
	g.fz.Reset()
	g.inf.Load(g.m)
}

// Refresh re-snapshots the model's parameters, so that changes made in
// place since NewGraphCC, Reset or the last Refresh take effect at the next
// Decide. It does not allocate.
func (g *GraphCC) Refresh() { g.inf.Load(g.m) }

// LastActions returns the action of every agent (in the order of Agents) at
// the last Decide, all 0 before the first. The slice is the policy's own:
// read it, do not keep it past the next Decide.
func (g *GraphCC) LastActions() []int { return g.actions }

// Agents returns the agent ports in the order of LastActions: increasing
// topo.PortID.
func (g *GraphCC) Agents() []topo.PortID { return g.agents }

// Model returns the policy's model.
func (g *GraphCC) Model() *Model { return g.m }

// Inference returns the fast path Decide runs the model on; its Q values
// are those of the last Decide. Do not run another Greedy on it between
// Decides if the Q values are needed.
func (g *GraphCC) Inference() *Inference { return g.inf }

// Featurizer returns the policy's featurizer (its Features are those of the
// last Decide).
func (g *GraphCC) Featurizer() *Featurizer { return g.fz }

// explorerStream is the PCG stream of an Explorer's random source.
const explorerStream = 0x6578706c6f7265 // "explore"

// Explorer is the GraphCC policy with per-agent epsilon-greedy exploration,
// for training: at every Decide each agent independently takes a uniformly
// random action with probability Epsilon, its greedy action otherwise. It
// computes every agent's reward (Reward with Shape and WeightQ) and hands
// each transition to OnStep. Decide does not allocate (OnStep aside).
type Explorer struct {
	G *GraphCC
	// Epsilon is the exploration probability in [0, 1]; the trainer sets
	// (and anneals) it between Decides.
	Epsilon float64
	// Shape and WeightQ define the reward (see Reward).
	Shape   RewardShape
	WeightQ float64
	// OnStep, if not nil, is called at every Decide but the first after a
	// Reset with the transition the last interval completed: prev are the
	// features (ports × the model's feature set's Len) at the previous
	// Decide, actions the actions every agent took there, rewards what each
	// earned during the interval that followed (computed from this Decide's
	// telemetry), and next the features now. The slices are the Explorer's
	// own: copy what must outlive the call (ReplayBuffer.Add does).
	OnStep func(prev []float64, actions []int, rewards []float64, next []float64)

	rng         *rand.Rand
	prev        []float64
	prevActions []int
	rewards     []float64
	started     bool
}

// NewExplorer returns an Explorer around g whose random choices come from
// its own PCG source seeded with seed, with Epsilon 1, the Linear reward and
// DefaultWeightQ.
func NewExplorer(g *GraphCC, seed uint64) *Explorer {
	return &Explorer{
		G:           g,
		Epsilon:     1,
		Shape:       Linear,
		WeightQ:     DefaultWeightQ,
		rng:         rand.New(rand.NewPCG(seed, explorerStream)),
		prev:        make([]float64, len(g.fz.feat)),
		prevActions: make([]int, len(g.agents)),
		rewards:     make([]float64, len(g.agents)),
	}
}

// Decide observes t, reports the completed transition to OnStep, picks every
// agent's epsilon-greedy action and writes its setting into ecn. The
// network runs only if Epsilon < 1; no random number is drawn if Epsilon <= 0,
// so an Explorer with Epsilon 0 decides exactly as its GraphCC.
func (x *Explorer) Decide(t *control.Telemetry, ecn []control.ECN) {
	g := x.G
	g.fz.Observe(t)
	feat := g.fz.Features()
	if x.started {
		Reward(x.rewards, g.fz, g.agents, x.Shape, x.WeightQ)
		if x.OnStep != nil {
			x.OnStep(x.prev, x.prevActions, x.rewards, feat)
		}
	}
	if x.Epsilon < 1 {
		g.inf.Greedy(feat, g.actions)
	}
	if x.Epsilon > 0 {
		for i := range g.actions {
			if x.Epsilon >= 1 || x.rng.Float64() < x.Epsilon {
				g.actions[i] = x.rng.IntN(NumActions)
			}
		}
	}
	g.apply(ecn)
	copy(x.prev, feat)
	copy(x.prevActions, g.actions)
	x.started = true
}

// Reset forgets the feature history and the pending transition, for a new
// run (episode). The random source carries on.
func (x *Explorer) Reset() {
	x.G.Reset()
	clear(x.rewards)
	x.started = false
}

// LastRewards returns the rewards of the last transition (per agent, in the
// order of G.Agents()), all 0 before the second Decide after a Reset. The
// slice is the Explorer's own.
func (x *Explorer) LastRewards() []float64 { return x.rewards }

var (
	_ control.Policy = (*GraphCC)(nil)
	_ control.Policy = (*Explorer)(nil)
)
