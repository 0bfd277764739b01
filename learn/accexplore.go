package learn

import (
	"math/rand/v2"

	"graphcc/control"
	"graphcc/gnn"
)

// accStream is the PCG stream of an accExplorer's random source.
const accStream = 0x616363 // "acc"

// accExplorer is ACC with per-agent epsilon-greedy exploration, for
// training: at every Decide each agent independently takes a uniformly
// random action with probability epsilon, its greedy action otherwise. It
// computes every agent's reward (Reward with shape and weightQ) and hands
// each transition to onStep, as Explorer does for GraphCC: the states are
// ports × gnn.ACCNumFeatures of the fabric, the actions and rewards those of
// its switch ports (gnn.ACC.Agents).
type accExplorer struct {
	a       *gnn.ACC
	epsilon float64
	shape   RewardShape
	weightQ float64
	onStep  func(prev []float64, actions []int, rewards []float64, next []float64)

	rng     *rand.Rand
	prev    []float64
	actions []int // per agent: the choice of the last Decide
	rewards []float64
	started bool
}

// newACCExplorer returns an accExplorer around a whose random choices come
// from its own PCG source seeded with seed, greedy (epsilon 0), with the
// Linear reward and DefaultWeightQ.
func newACCExplorer(a *gnn.ACC, seed uint64) *accExplorer {
	n := len(a.Agents())
	return &accExplorer{
		a: a, shape: Linear, weightQ: DefaultWeightQ,
		rng:     rand.New(rand.NewPCG(seed, accStream)),
		prev:    make([]float64, len(a.State())),
		actions: make([]int, n),
		rewards: make([]float64, n),
	}
}

// Decide observes the interval, reports the completed transition to
// onStep, lets every agent choose its port's setting, epsilon-greedily,
// and writes it into ecn.
func (x *accExplorer) Decide(t *control.Telemetry, ecn []control.ECN) {
	a := x.a
	copy(x.prev, a.State())
	a.Observe(t, ecn)
	if x.started && x.onStep != nil {
		Reward(x.rewards, a.Featurizer(), a.Agents(), x.shape, x.weightQ)
		x.onStep(x.prev, x.actions, x.rewards, a.State())
	}
	for i := range x.actions {
		if x.epsilon > 0 && x.rng.Float64() < x.epsilon {
			x.actions[i] = x.rng.IntN(gnn.NumActions)
		} else {
			x.actions[i] = a.Greedy(i)
		}
	}
	a.Act(x.actions, ecn)
	x.started = true
}

// Reset forgets the telemetry history and the pending transition, for a
// new episode. The random source carries on.
func (x *accExplorer) Reset() {
	x.a.Reset()
	x.started = false
}
