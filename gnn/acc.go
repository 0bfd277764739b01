package gnn

import (
	"fmt"
	"math/rand/v2"

	"graphcc/control"
	"graphcc/topo"
)

// ACCHidden is the hidden width of each ACC agent's Q-network.
const ACCHidden = 24

// ACC is the ACC baseline (Yan et al., SIGCOMM 2021) as docs/learning.md, "Method", specifies
// it for a like-for-like comparison: one independent double-DQN agent per
// switch egress port, no parameter sharing and no message passing, on ACC's
// state (queue, tx rate, ECN-marked tx rate and the current ECN setting,
// with 2 past steps: ACCNumFeatures inputs) and GraphCC's 120 actions and
// reward. Nets[i] is the agent of the switch port named Ports()[i]
// (topo.Fabric.PortName): an agent belongs to its port, not to an index, so
// that on a fabric with failed links the other ports keep their agents and
// the failed ports' agents stay idle.
type ACC struct {
	Nets []*MLPNet

	ports   []string // ports[i]: the port of Nets[i]
	fabric  *topo.Fabric
	agents  []topo.PortID // the fabric's switch ports
	net     []int         // net[i]: the index in Nets of agents[i]'s network
	ws      []*MLPWorkspace
	fz      *Featurizer
	state   []float64 // ports×ACCNumFeatures
	actions []int
}

// PortNames returns the names of f's switch ports (f.Agents()), in order:
// the ports of the agents NewACC makes for f.
func PortNames(f *topo.Fabric) []string {
	agents := f.Agents()
	names := make([]string, len(agents))
	for i, p := range agents {
		names[i] = f.PortName(p)
	}
	return names
}

// NewACC returns ACC agents with fresh networks for every switch port of f,
// initialised from r.
func NewACC(f *topo.Fabric, c FeatureConfig, r *rand.Rand) *ACC {
	agents := f.Agents()
	nets := make([]*MLPNet, len(agents))
	for i := range nets {
		nets[i] = NewMLPNet(ACCNumFeatures, ACCHidden, NumActions, r)
	}
	a, err := NewACCFrom(nets, PortNames(f), f, c)
	if err != nil {
		panic(err) // the shapes are ours
	}
	return a
}

// NewACCFrom returns ACC agents using nets, nets[i] the agent of the port
// named ports[i] (as loaded from a model file), on fabric f. Every switch
// port of f must have an agent; agents of ports f lacks (failed links) stay
// idle.
func NewACCFrom(nets []*MLPNet, ports []string, f *topo.Fabric, c FeatureConfig) (*ACC, error) {
	if len(nets) != len(ports) {
		return nil, fmt.Errorf("acc: %d agent networks for %d port names", len(nets), len(ports))
	}
	for i, n := range nets {
		if n.Layer.In != ACCNumFeatures || n.Layer.Out != NumActions {
			return nil, fmt.Errorf("acc: agent %d network is %d→%d, want %d→%d", i, n.Layer.In, n.Layer.Out, ACCNumFeatures, NumActions)
		}
	}
	byName := make(map[string]int, len(ports))
	for i, name := range ports {
		if j, dup := byName[name]; dup {
			return nil, fmt.Errorf("acc: agents %d and %d are both of port %s", j, i, name)
		}
		byName[name] = i
	}
	agents := f.Agents()
	net := make([]int, len(agents))
	for i, p := range agents {
		j, ok := byName[f.PortName(p)]
		if !ok {
			return nil, fmt.Errorf("acc: switch port %s has no agent (the %d agents are of another fabric's ports)", f.PortName(p), len(ports))
		}
		net[i] = j
	}
	a := &ACC{
		Nets: nets, ports: ports, fabric: f, agents: agents, net: net, fz: NewFeaturizer(f, c),
		state:   make([]float64, len(f.Ports)*ACCNumFeatures),
		actions: make([]int, len(agents)),
	}
	a.ws = make([]*MLPWorkspace, len(nets))
	for i, n := range nets {
		a.ws[i] = NewMLPWorkspace(n, 1)
	}
	return a, nil
}

// Ports returns the names of the agents' ports, in the order of Nets.
func (a *ACC) Ports() []string { return a.ports }

// AgentNets returns, for every switch port of the fabric (Agents), the index
// in Nets of its agent.
func (a *ACC) AgentNets() []int { return a.net }

// Agents returns the fabric's switch ports, in the order of LastActions.
func (a *ACC) Agents() []topo.PortID { return a.agents }

// Reset forgets the telemetry history, for a new episode.
func (a *ACC) Reset() { a.fz.Reset() }

// LastActions returns the action each agent chose at the last Decide.
func (a *ACC) LastActions() []int { return a.actions }

// Featurizer returns the policy's featurizer (its telemetry history is that
// of the last Observe).
func (a *ACC) Featurizer() *Featurizer { return a.fz }

// Decide observes the interval and gives every agent's port the setting of
// the agent's greedy action.
func (a *ACC) Decide(t *control.Telemetry, ecn []control.ECN) {
	a.Observe(t, ecn)
	for i := range a.agents {
		a.actions[i] = a.Greedy(i)
	}
	a.Act(a.actions, ecn)
}

// Observe reads the interval of t, ecn being the settings in force during
// it (indexed by topo.PortID), into the agents' state: what Decide does
// before choosing, for a caller that chooses otherwise (learn's exploring
// ACC).
func (a *ACC) Observe(t *control.Telemetry, ecn []control.ECN) {
	a.fz.Observe(t)
	a.fz.ACCFeatures(a.state, ecn)
}

// State returns the state of every port at the last Observe, ports ×
// ACCNumFeatures row-major by topo.PortID. The slice is the policy's own:
// read it, do not keep it past the next Observe.
func (a *ACC) State() []float64 { return a.state }

// Greedy returns the greedy action of agent i (of Agents) in the state of
// the last Observe.
func (a *ACC) Greedy(i int) int {
	p, k := a.agents[i], a.net[i]
	row := a.state[int(p)*ACCNumFeatures : (int(p)+1)*ACCNumFeatures]
	var act [1]int
	a.Nets[k].Greedy(a.ws[k], row, act[:])
	return act[0]
}

// Act makes actions (one per agent, in the order of Agents) the agents'
// choice, LastActions, and writes their settings into ecn.
func (a *ACC) Act(actions []int, ecn []control.ECN) {
	checkLen("ACC actions", len(actions), len(a.agents))
	copy(a.actions, actions)
	for i, p := range a.agents {
		ecn[p] = Action(a.actions[i], a.fabric.Ports[p].Rate)
	}
}
