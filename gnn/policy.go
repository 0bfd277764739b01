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
// A model with a host head (Shape.HostActions) also sets every host's DCQCN
// constants every interval (control.HostDecider): the same step reads out
// each host NIC port's greedy host action, and DecideHosts writes its
// constants (Model.HostTable). Without a host head DecidesHosts is false.
//
// Like every control.Policy it serves one fabric run at a time; call Reset
// before reusing it for a new run, so that the feature history starts from
// zeros again.
type GraphCC struct {
	m       *Model
	inf     *Inference
	fz      *Featurizer
	agents  []topo.PortID
	hosts   []topo.PortID // the host agents (with a host head)
	rates   []int64       // per agent, bps
	actions []int         // per agent, then per host agent: the action of the last Decide
}

// NewGraphCC returns the GraphCC policy of model m on fabric f, with the
// features of m's feature set (m.FeatureSet) normalized by c. It panics if
// m's inputs or outputs do not match its feature set and the action table.
func NewGraphCC(m *Model, f *topo.Fabric, c FeatureConfig) *GraphCC {
	if m.Features != m.FeatureSet.Len() || m.Actions != NumActions || m.HostActions != 0 && m.HostActions != m.HostTable.Len() {
		panic(fmt.Sprintf("gnn: GraphCC policy needs a model of %d features (the %s set), %d actions and 0 or %d host actions (its host table), got %d, %d and %d",
			m.FeatureSet.Len(), m.FeatureSet, NumActions, m.HostTable.Len(), m.Features, m.Actions, m.HostActions))
	}
	inf := NewInference(m, f.Graph(), 0)
	agents := inf.Agents()
	if !slices.Equal(agents, f.Agents()) {
		panic("gnn: the inference's agents are not the fabric's")
	}
	g := &GraphCC{
		m: m, inf: inf, fz: NewFeaturizerSet(f, m.FeatureSet, c), agents: agents, hosts: inf.Hosts(),
		rates:   make([]int64, len(agents)),
		actions: make([]int, len(agents)+len(inf.Hosts())),
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

// DecidesHosts reports whether the model has a host head.
func (g *GraphCC) DecidesHosts() bool { return g.m.HostActions > 0 }

// DecideHosts writes into hosts (by topo.PortID) the DCQCN constants of
// every host agent's action of the last Decide in the model's host table
// (Model.HostTable). It does not allocate.
func (g *GraphCC) DecideHosts(_ *control.Telemetry, hosts []control.HostParams) {
	checkLen("host settings", len(hosts), g.fz.ports)
	acts := g.actions[len(g.agents):]
	for j, p := range g.hosts {
		hosts[p] = g.m.HostTable.Action(acts[j])
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
func (g *GraphCC) LastActions() []int { return g.actions[:len(g.agents):len(g.agents)] }

// LastHostActions returns the host action of every host agent (in the
// order of Hosts) at the last Decide; empty without a host head. The slice
// is the policy's own.
func (g *GraphCC) LastHostActions() []int { return g.actions[len(g.agents):] }

// Hosts returns the host agents, the host NIC ports the host head reads
// out, in the order of LastHostActions; empty without a host head.
func (g *GraphCC) Hosts() []topo.PortID { return g.hosts }

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
//
// With a host head the host agents explore too (each its own draw, over
// the host table), follow the switch agents in OnStep's actions and
// rewards, and their settings go to the hosts (control.HostDecider). Their
// reward here is Reward on their NIC port; the trainer overwrites it
// (TrainConfig.Hosts).
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
	// Decide, actions the actions every agent (then every host agent) took there, rewards what each
	// earned during the interval that followed (computed from this Decide's
	// telemetry), and next the features now. The slices are the Explorer's
	// own: copy what must outlive the call (ReplayBuffer.Add does).
	OnStep func(prev []float64, actions []int, rewards []float64, next []float64)

	rng         *rand.Rand
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
// its port (ActionSet.Nearest). With a host head, a host agent's label is
// the action of the model's host table nearest to the constants teacher
// gives its NIC (HostTable.Nearest): those its DecideHosts writes every interval if it
// decides the hosts' (control.HostDeciderOf), starting from its fixed
// constants (control.HostParamsOf) or else hardware; else its fixed
// constants; else hardware, the constants the simulated hardware gives
// the hosts (HPCC's preset, host action 0, by default). The agents still
// act epsilon-greedily, and the teacher's settings are not applied.
func (x *Explorer) SetTeacher(teacher control.Policy, initial []control.ECN, hardware control.HostParams) error {
	g := x.G
	if initial != nil && len(initial) != g.fz.ports {
		return fmt.Errorf("gnn: teacher's initial settings for %d ports, the fabric has %d", len(initial), g.fz.ports)
	}
	x.teacher = teacher
	x.teacherECN = slices.Clone(initial)
	if x.teacherECN == nil {
		x.teacherECN = make([]control.ECN, g.fz.ports)
		for i, p := range g.agents {
			x.teacherECN[p] = control.Alibaba(g.rates[i])
		}
	}
	x.labels = make([]int, len(g.actions))
	x.teacherHosts, x.hostDecider = nil, nil
	if g.DecidesHosts() {
		h, ok := control.HostParamsOf(teacher)
		if !ok {
			h = hardware
		}
		x.teacherHosts = make([]control.HostParams, g.fz.ports)
		for _, p := range g.hosts {
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
	for i, p := range g.agents {
		x.labels[i] = g.m.ActionSet.Nearest(x.teacherECN[p], g.rates[i])
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
	for j, p := range g.hosts {
		x.labels[len(g.agents)+j] = g.m.HostTable.Nearest(x.teacherHosts[p])
	}
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
		prevActions: make([]int, len(g.actions)),
		rewards:     make([]float64, len(g.actions)),
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
		nA := len(g.agents)
		Reward(x.rewards[:nA], g.fz, g.agents, x.Shape, x.WeightQ)
		Reward(x.rewards[nA:], g.fz, g.hosts, x.Shape, x.WeightQ)
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
				n := NumActions
				if i >= len(g.agents) {
					n = g.m.HostActions
				}
				g.actions[i] = x.rng.IntN(n)
			}
		}
	}
	g.apply(ecn)
	copy(x.prev, feat)
	if x.teacher != nil {
		x.label(t)
		copy(x.prevActions, x.labels)
	} else {
		copy(x.prevActions, g.actions)
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
// hosts (GraphCC.DecideHosts).
func (x *Explorer) DecideHosts(t *control.Telemetry, hosts []control.HostParams) {
	x.G.DecideHosts(t, hosts)
}

// LastRewards returns the rewards of the last transition (per agent, in the
// order of G.Agents()), all 0 before the second Decide after a Reset. The
// slice is the Explorer's own.
func (x *Explorer) LastRewards() []float64 { return x.rewards }

var (
	_ control.HostDecider = (*GraphCC)(nil)
	_ control.HostDecider = (*Explorer)(nil)
)
