package gnn

import (
	"errors"
	"fmt"
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
// features of m's feature set (m.FeatureSet) normalized by c. It fails if
// m does not fit a GraphCC policy (CheckPolicyModel) or c is not valid.
func NewGraphCC(m *Model, f *topo.Fabric, c FeatureConfig) (*GraphCC, error) {
	if err := CheckPolicyModel(m); err != nil {
		return nil, fmt.Errorf("graphcc policy: %w", err)
	}
	if err := c.Validate(); err != nil {
		return nil, fmt.Errorf("graphcc policy: %w", err)
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
	return g, nil
}

// CheckPolicyModel reports whether m fits a GraphCC policy, central or
// per-switch, on any fabric: a valid shape, as many parameters as it
// says, the inputs of its feature set, the outputs of the action table
// and, with a host head, of its host table. The policies' constructors
// check it, so that a model file a user names fails there, not inside a
// step.
func CheckPolicyModel(m *Model) error {
	if m == nil {
		return errors.New("no model")
	}
	if err := m.Shape.Validate(); err != nil {
		return fmt.Errorf("model shape: %w", err)
	}
	if !slices.Contains(FeatureSets(), m.FeatureSet) {
		return fmt.Errorf("model of an unknown feature set %d", int(m.FeatureSet))
	}
	if n := m.Shape.NumParams(); len(m.Params) != n {
		return fmt.Errorf("model has %d parameters, its shape %d", len(m.Params), n)
	}
	if m.Features != m.FeatureSet.Len() || m.Actions != NumActions || m.HostActions != 0 && m.HostActions != m.HostTable.Len() {
		return fmt.Errorf("needs a model of %d features (the %s set), %d actions and 0 or %d host actions (its host table), got %d, %d and %d",
			m.FeatureSet.Len(), m.FeatureSet, NumActions, m.HostTable.Len(), m.Features, m.Actions, m.HostActions)
	}
	return nil
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
	writeSettings(ecn, g.m.ActionSet, g.agents, g.rates, g.actions)
}

// writeSettings writes into ecn (by topo.PortID) the setting of set's
// action acts[i] at rate rates[i] for every port ports[i]: the one place a
// model's action becomes a port's setting, for the central step and every
// per-switch agent.
func writeSettings(ecn []control.ECN, set ActionSet, ports []topo.PortID, rates []int64, acts []int) {
	for i, p := range ports {
		ecn[p] = set.Setting(acts[i], rates[i])
	}
}

// Act makes actions the policy's decision, as if its last Decide had
// chosen them: every agent's action, then every host agent's (the layout
// of LastActions, then LastHostActions). It writes the agents' settings
// into ecn; DecideHosts then writes the host agents'. It is for a caller
// that chooses otherwise than greedily, an exploring trainer
// (learn.Explorer). It does not allocate.
func (g *GraphCC) Act(actions []int, ecn []control.ECN) {
	checkLen("actions", len(actions), len(g.actions))
	copy(g.actions, actions)
	g.apply(ecn)
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

var _ control.HostDecider = (*GraphCC)(nil)
