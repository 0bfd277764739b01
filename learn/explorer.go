package learn

import (
	"fmt"
	"math/rand/v2"
	"slices"

	"graphcc/control"
	"graphcc/gnn"
)

// explorerStream is the PCG stream of an Explorer's random source.
const explorerStream = 0x6578706c6f7265 // "explore"

// Explorer is the GraphCC policy with per-agent epsilon-greedy exploration,
// for training: at every Decide each agent independently takes a uniformly
// random action with probability Epsilon, its greedy action otherwise. It
// computes every agent's reward (Reward with Shape and WeightQ) and hands
// each transition to OnStep. Decide does not allocate (OnStep aside).
//
// With a host head the host agents explore too (each its own draw, over
// the host table), follow the switch agents in OnStep's actions and
// rewards, and their settings go to the hosts (control.HostDecider). Their
// reward here is Reward on their NIC port; the trainer overwrites it
// (Config.Hosts).
type Explorer struct {
	G *gnn.GraphCC
	// Epsilon is the exploration probability in [0, 1]; the trainer sets
	// (and anneals) it between Decides.
	Epsilon float64
	// Shape and WeightQ define the reward (see Reward).
	Shape   RewardShape
	WeightQ float64
	// OnStep, if not nil, is called at every Decide but the first after a
	// Reset with the transition the last interval completed: prev are the
	// features (ports × the model's feature set's Len) at the previous
	// Decide, actions the actions every agent (then every host agent) took there, rewards what each
	// earned during the interval that followed (computed from this Decide's
	// telemetry), and next the features now. The slices are the Explorer's
	// own: copy what must outlive the call (ReplayBuffer.Add does).
	OnStep func(prev []float64, actions []int, rewards []float64, next []float64)

	rng         *rand.Rand
	actions     []int // per agent, then per host agent: the choice of this Decide
	prev        []float64
	prevActions []int
	rewards     []float64
	started     bool

	teacher      control.Policy       // SetTeacher's
	teacherECN   []control.ECN        // the teacher's settings, by PortID
	teacherHosts []control.HostParams // the teacher's host constants, by PortID (with a host head)
	hostDecider  control.HostDecider  // the teacher, if it decides the hosts' constants
	labels       []int                // per agent, then per host agent: the teacher's action of the last Decide
}

// SetTeacher makes x report to OnStep, as every agent's action, the
// label teacher gives it (ImitateObjective) instead of the action it took:
// teacher decides on the same telemetry at every Decide, from the settings
// initial (by topo.PortID, for the fabric x's GraphCC runs on; nil means
// control.StaticSettings of that fabric), and a switch agent's label is
// the action of the model's table nearest to the setting teacher chose for
// its port (gnn.ActionSet.Nearest). With a host head, a host agent's label is
// the action of the model's host table nearest to the constants teacher
// gives its NIC (gnn.HostTable.Nearest): those its DecideHosts writes every interval if it
// decides the hosts' (control.HostDeciderOf), starting from its fixed
// constants (control.HostParamsOf) or else hardware; else its fixed
// constants; else hardware, the constants the simulated hardware gives
// the hosts (HPCC's preset, host action 0, by default). The agents still
// act epsilon-greedily, and the teacher's settings are not applied.
func (x *Explorer) SetTeacher(teacher control.Policy, initial []control.ECN, hardware control.HostParams) error {
	g, fz := x.G, x.G.Featurizer()
	if initial != nil && len(initial) != fz.Ports() {
		return fmt.Errorf("learn: teacher's initial settings for %d ports, the fabric has %d", len(initial), fz.Ports())
	}
	x.teacher = teacher
	x.teacherECN = slices.Clone(initial)
	if x.teacherECN == nil {
		x.teacherECN = make([]control.ECN, fz.Ports())
		for _, p := range g.Agents() {
			x.teacherECN[p] = control.Alibaba(fz.Rate(p))
		}
	}
	x.labels = make([]int, len(x.actions))
	x.teacherHosts, x.hostDecider = nil, nil
	if g.DecidesHosts() {
		h, ok := control.HostParamsOf(teacher)
		if !ok {
			h = hardware
		}
		x.teacherHosts = make([]control.HostParams, fz.Ports())
		for _, p := range g.Hosts() {
			x.teacherHosts[p] = h
		}
		x.hostDecider, _ = control.HostDeciderOf(teacher)
		x.labelHosts(nil)
	}
	return nil
}

// label has the teacher decide on t and sets every agent's label.
func (x *Explorer) label(t *control.Telemetry) {
	g := x.G
	x.teacher.Decide(t, x.teacherECN)
	for i, p := range g.Agents() {
		x.labels[i] = g.Model().ActionSet.Nearest(x.teacherECN[p], g.Featurizer().Rate(p))
	}
	if x.teacherHosts != nil {
		x.labelHosts(t)
	}
}

// labelHosts has a teacher that decides the hosts' constants decide them
// on t (if t is not nil) and sets every host agent's label.
func (x *Explorer) labelHosts(t *control.Telemetry) {
	g := x.G
	if t != nil && x.hostDecider != nil {
		x.hostDecider.DecideHosts(t, x.teacherHosts)
	}
	nA := len(g.Agents())
	for j, p := range g.Hosts() {
		x.labels[nA+j] = g.Model().HostTable.Nearest(x.teacherHosts[p])
	}
}

// NewExplorer returns an Explorer around g whose random choices come from
// its own PCG source seeded with seed, with Epsilon 1, the Linear reward and
// DefaultWeightQ.
func NewExplorer(g *gnn.GraphCC, seed uint64) *Explorer {
	n := len(g.Agents()) + len(g.Hosts())
	return &Explorer{
		G:           g,
		Epsilon:     1,
		Shape:       Linear,
		WeightQ:     DefaultWeightQ,
		rng:         rand.New(rand.NewPCG(seed, explorerStream)),
		actions:     make([]int, n),
		prev:        make([]float64, len(g.Featurizer().Features())),
		prevActions: make([]int, n),
		rewards:     make([]float64, n),
	}
}

// Decide observes t, reports the completed transition to OnStep, picks every
// agent's epsilon-greedy action and writes its setting into ecn. The
// network runs only if Epsilon < 1; no random number is drawn if Epsilon <= 0,
// so an Explorer with Epsilon 0 decides exactly as its GraphCC.
func (x *Explorer) Decide(t *control.Telemetry, ecn []control.ECN) {
	g, fz := x.G, x.G.Featurizer()
	fz.Observe(t)
	feat := fz.Features()
	nA := len(g.Agents())
	if x.started {
		Reward(x.rewards[:nA], fz, g.Agents(), x.Shape, x.WeightQ)
		Reward(x.rewards[nA:], fz, g.Hosts(), x.Shape, x.WeightQ)
		if x.OnStep != nil {
			x.OnStep(x.prev, x.prevActions, x.rewards, feat)
		}
	}
	if x.Epsilon < 1 {
		g.Inference().Greedy(feat, x.actions)
	}
	if x.Epsilon > 0 {
		for i := range x.actions {
			if x.Epsilon >= 1 || x.rng.Float64() < x.Epsilon {
				n := gnn.NumActions
				if i >= nA {
					n = g.Model().HostActions
				}
				x.actions[i] = x.rng.IntN(n)
			}
		}
	}
	g.Act(x.actions, ecn)
	copy(x.prev, feat)
	if x.teacher != nil {
		x.label(t)
		copy(x.prevActions, x.labels)
	} else {
		copy(x.prevActions, x.actions)
	}
	x.started = true
}

// Reset forgets the feature history and the pending transition, for a new
// run (episode). The random source carries on.
func (x *Explorer) Reset() {
	x.G.Reset()
	clear(x.rewards)
	x.started = false
}

// DecidesHosts reports whether the model has a host head.
func (x *Explorer) DecidesHosts() bool { return x.G.DecidesHosts() }

// DecideHosts writes the host agents' settings of the last Decide into
// hosts (gnn.GraphCC.DecideHosts).
func (x *Explorer) DecideHosts(t *control.Telemetry, hosts []control.HostParams) {
	x.G.DecideHosts(t, hosts)
}

// LastRewards returns the rewards of the last transition (per agent, in the
// order of G.Agents()), all 0 before the second Decide after a Reset. The
// slice is the Explorer's own.
func (x *Explorer) LastRewards() []float64 { return x.rewards }

var _ control.HostDecider = (*Explorer)(nil)
