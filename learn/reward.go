package learn

import (
	"fmt"

	"graphcc/control"
	"graphcc/gnn"
	"graphcc/topo"
)

// RewardShape is the latency term f of the reward: a decreasing function of
// the normalized queue x in [0, 1] with f(0) = 1 and f(1) = 0.
type RewardShape int

const (
	// Linear is f(x) = 1 - x.
	Linear RewardShape = iota
	// Convex is f(x) = (1 - x)^2: convex and decreasing, so the first bytes
	// of queue cost the most (f'(0) = -2, f'(1) = 0) and a queue already
	// near Q is penalized little more for growing. It pushes harder towards
	// empty queues than Linear.
	Convex
	// Concave is f(x) = 1 - x^2: concave and decreasing, so a short queue
	// costs little (f'(0) = 0) and the cost grows as the queue nears Q
	// (f'(1) = -2). It tolerates queues well below Q and pushes hardest
	// against those near it, like a marking threshold at Q.
	Concave
)

// String returns "linear", "convex" or "concave".
func (s RewardShape) String() string {
	switch s {
	case Linear:
		return "linear"
	case Convex:
		return "convex"
	case Concave:
		return "concave"
	}
	return fmt.Sprintf("RewardShape(%d)", int(s))
}

// ParseRewardShape parses the names String returns.
func ParseRewardShape(name string) (RewardShape, error) {
	switch name {
	case "linear":
		return Linear, nil
	case "convex":
		return Convex, nil
	case "concave":
		return Concave, nil
	}
	return 0, fmt.Errorf("learn: unknown reward shape %q (want linear, convex or concave)", name)
}

// F returns f(x) for x in [0, 1] (x is clamped to it).
func (s RewardShape) F(x float64) float64 {
	x = clamp01(x)
	switch s {
	case Linear:
		return 1 - x
	case Convex:
		return (1 - x) * (1 - x)
	case Concave:
		return 1 - x*x
	}
	panic(fmt.Sprintf("learn: unknown reward shape %d", int(s)))
}

// DefaultWeightQ is the weight of the latency term in the reward (the
// throughput term gets 1 - DefaultWeightQ = 0.3).
const DefaultWeightQ = 0.7

// Reward writes into dst (one per agent) the reward of each port in agents
// for the interval of fz's most recent observation:
//
//	r = weightQ*f(x) + (1-weightQ)*u,   x = min(q/Q, 1),  u clamped to [0, 1]
//
// where q is the port's queue (control.PortSample.QueueFeature, bytes), Q
// the port's reward queue (gnn.FeatureConfig.RewardQueue scaled by the port's
// rate; by default the queue scale) and u its utilization. With weightQ =
// DefaultWeightQ this is GraphCC's r = 0.7*f(x) + 0.3*u. Before the first
// observation every port is idle: r = weightQ. It does not allocate.
func Reward(dst []float64, fz *gnn.Featurizer, agents []topo.PortID, shape RewardShape, weightQ float64) {
	checkLen("rewards", len(dst), len(agents))
	for i, p := range agents {
		x, u := fz.RewardInputs(p)
		dst[i] = weightQ*shape.F(x) + (1-weightQ)*u
	}
}

// RewardMeter scores control intervals of one fabric with the training
// reward: Score is the mean of Reward over the fabric's agents (every switch
// egress port), the quantity a training episode averages into
// EpisodeStats.MeanReward. It watches the telemetry only, so it scores any
// policy, the static ones included, as training would have rewarded it.
type RewardMeter struct {
	fz      *gnn.Featurizer
	agents  []topo.PortID
	r       []float64
	shape   RewardShape
	weightQ float64
}

// NewRewardMeter returns a meter for the agents of f with reward queue
// c.RewardQueue (0: the default), latency term shape and its weight weightQ
// (DefaultWeightQ for GraphCC's 0.7).
func NewRewardMeter(f *topo.Fabric, c gnn.FeatureConfig, shape RewardShape, weightQ float64) *RewardMeter {
	agents := f.Agents()
	return &RewardMeter{fz: gnn.NewFeaturizer(f, c), agents: agents, r: make([]float64, len(agents)),
		shape: shape, weightQ: weightQ}
}

// Score observes the interval of t (which must cover every port of the
// fabric) and returns the agents' mean reward for it, or 0 for a fabric
// without agents. It does not allocate.
func (m *RewardMeter) Score(t *control.Telemetry) float64 {
	m.fz.Observe(t)
	if len(m.agents) == 0 {
		return 0
	}
	Reward(m.r, m.fz, m.agents, m.shape, m.weightQ)
	var s float64
	for _, v := range m.r {
		s += v
	}
	return s / float64(len(m.agents))
}

// Objective is what training rewards the agents for.
type Objective int

const (
	// PortObjective is the paper's (docs/learning.md, "Reward"): each agent's own Reward, from its
	// port's queue and utilization.
	PortObjective Objective = iota
	// FlowObjective is an experiment: every agent earns the same team
	// reward for an interval, minus the excess slowdown (slowdown - 1)
	// summed over the flows that finished in it, divided by
	// FlowRewardScale. Over a trace its undiscounted sum is minus the
	// flows' total excess slowdown: the evaluation's mean slowdown, up to
	// the flows still running when the episode ends.
	FlowObjective
)

// PathObjective (an experiment) credits each agent with the flows that
// crossed its port: an agent earns for an interval minus the excess
// slowdown summed over the flows that finished in it and whose data left
// through the agent's port, divided by PathRewardScale.
const PathObjective Objective = FlowObjective + 1

// ImitateObjective is not a reward: the switch agents learn to copy a
// teacher (Config.Teacher), each interval's label of an agent being
// the action of the table closest to the setting the teacher chose for its
// port (and, with a host head, a host agent's the host action nearest to
// the teacher's DCQCN constants for its NIC, Explorer.SetTeacher). The
// network's outputs are then logits of a classifier, trained by
// softmax cross-entropy on the labels of the states the agents visited
// (their own epsilon-greedy actions, so the states are the learner's as
// in DAgger; a fixed teacher's labels do not depend on the states). The
// greedy policy plays the teacher's setting of the regime it recognizes.
const ImitateObjective Objective = PathObjective + 1

// PathRewardScale divides PathObjective's rewards: a port of the training
// scenario sees a few flows finish per interval.
const PathRewardScale = 10

// FlowRewardScale divides FlowObjective's rewards: an interval of the
// training scenario finishes about 40 flows at about 2 excess slowdown
// each, so its rewards are of the order of 1.
const FlowRewardScale = 100

// String returns "port", "flows", "paths" or "imitate".
func (o Objective) String() string {
	switch o {
	case PortObjective:
		return "port"
	case FlowObjective:
		return "flows"
	case PathObjective:
		return "paths"
	case ImitateObjective:
		return "imitate"
	}
	return fmt.Sprintf("Objective(%d)", int(o))
}

// ParseObjective parses the names String returns.
func ParseObjective(name string) (Objective, error) {
	switch name {
	case "port":
		return PortObjective, nil
	case "flows":
		return FlowObjective, nil
	case "paths":
		return PathObjective, nil
	case "imitate":
		return ImitateObjective, nil
	}
	return 0, fmt.Errorf("learn: unknown objective %q (want port, flows, paths or imitate)", name)
}

// clamp01 returns v limited to [0, 1]; NaN counts as 0.
func clamp01(v float64) float64 {
	switch {
	case v > 1:
		return 1
	case v > 0:
		return v
	}
	return 0 // also NaN
}
