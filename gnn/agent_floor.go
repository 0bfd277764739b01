package gnn

import (
	"errors"
	"fmt"
	"slices"

	"graphcc/control"
)

// AgentFloor is one switch's Agent held to a fixed base configuration:
// its share of a Floor whose base never changes (static, edge, tuned
// constants, with or without fixed hosts' constants; docs/agents.md).
// After the agent's last round each of its egress ports keeps the base's
// setting, and with a host head each of its hosts the base's constants,
// unless the model's Q value of its greedy action exceeds its Q value of
// the base's nearest action by more than the margin of its head: the
// Floor's gate, the same code. The hold on link events is the agent's
// own: with FloorGates.HoldLinks it holds every port and host while a
// link of its own switch is down (a row of its telemetry reports
// LinkDown) and for LinkHold after, where the central Floor holds the
// whole fabric while any link is down. No method of a step allocates.
type AgentFloor struct {
	ag      *Agent
	gates   FloorGates
	base    []control.ECN        // the base's settings, by topo.PortID
	hosts   []control.HostParams // the base's constants of the agent's hosts, by topo.PortID
	hostsOK bool                 // hosts holds them
	ports   portGate
	hgate   hostGate
	links   linkGate
	held    bool   // the last Observe held the agent on the base (links)
	model   []bool // per egress port, then per host: the model's choice taken at the last step
}

// NewAgentFloor returns ag held to the fixed base settings base (by
// topo.PortID, every port of the fabric) under gates. It fails on gates
// no Floor can run and on base settings that do not cover the agent's
// ports and hosts.
func NewAgentFloor(ag *Agent, base []control.ECN, gates FloorGates) (*AgentFloor, error) {
	if ag == nil {
		return nil, errors.New("agent floor: no agent")
	}
	if err := gates.check(); err != nil {
		return nil, fmt.Errorf("agent floor of switch %d: %w", ag.view.Switch, err)
	}
	for _, p := range slices.Concat(ag.ports, ag.hosts) {
		if int(p) >= len(base) {
			return nil, fmt.Errorf("agent floor of switch %d: %d base settings do not cover port %d", ag.view.Switch, len(base), p)
		}
	}
	return &AgentFloor{
		ag: ag, gates: gates, base: slices.Clone(base), hosts: make([]control.HostParams, len(base)),
		ports: newPortGate(ag.set, ag.ports, ag.rates, base), hgate: newHostGate(ag.nHost),
		model: make([]bool, len(ag.actions)),
	}, nil
}

// Agent returns the agent the floor holds.
func (af *AgentFloor) Agent() *Agent { return af.ag }

// Observe takes the agent's telemetry t (Agent.Observe's rows): the hold
// on link events, then the agent's Observe.
func (af *AgentFloor) Observe(t *control.Telemetry) {
	af.held = af.gates.HoldLinks && af.links.holds(t, af.gates.LinkHold)
	af.ag.Observe(t)
}

// Settings writes into ecn (by topo.PortID) the setting of every egress
// port of the last completed step: the base's, or the model's where the
// port's Q-gap passes the gate (FloorGates.Margin) and no link holds the
// agent. It does not allocate.
func (af *AgentFloor) Settings(ecn []control.ECN) {
	ag := af.ag
	n := ag.nOwn
	af.ports.decide(ag.set, ag.w.shape.Actions, ag.ports, ag.rates, ag.q, ag.actions[:n],
		af.base, af.gates.Margin, af.held, af.model[:n], ecn)
}

// HostSettings writes into hosts (by topo.PortID) the DCQCN constants of
// every host of the agent, with a host head, of the last completed step:
// the base's, or those of the model's host action where the host's Q-gap
// passes the gate (FloorGates.HostMargin) and no link holds the agent. The
// base's constants are those hosts holds at the first call after
// NewAgentFloor or Reset: the hosts' starting constants. Without a host
// head it does nothing. It does not allocate.
func (af *AgentFloor) HostSettings(hosts []control.HostParams) {
	ag := af.ag
	if ag.w.shape.HostActions == 0 {
		return
	}
	if !af.hostsOK {
		for _, p := range ag.hosts {
			af.hosts[p] = hosts[p]
		}
		af.hostsOK = true
	}
	n := ag.nOwn
	af.hgate.decide(ag.htab, ag.w.shape.HostActions, ag.hosts, ag.q[n*ag.w.shape.Actions:], ag.actions[n:],
		af.hosts, af.gates.HostMargin, af.held, af.model[n:], hosts)
}

// Base returns the base's settings (by topo.PortID). The slice is the
// floor's own.
func (af *AgentFloor) Base() []control.ECN { return af.base }

// Held reports whether the last Observe held the agent on the base: a
// link of its switch down, or up again less than LinkHold ago.
func (af *AgentFloor) Held() bool { return af.held }

// Departed returns, for the last step, whether each egress port (in the
// view's order) and then each host (in the order of Hosts) took the
// model's choice rather than the base's. The slice is the floor's own.
func (af *AgentFloor) Departed() []bool { return af.model }

// Reset forgets the agent's history (Agent.Reset), the hold and the
// hosts' base constants, for a new run.
func (af *AgentFloor) Reset() {
	af.ag.Reset()
	clear(af.model)
	af.links, af.held = linkGate{}, false
	af.hostsOK, af.hgate.set = false, false
}
