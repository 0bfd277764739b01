package gnn

import (
	"errors"
	"fmt"
	"slices"

	"graphcc/control"
	"graphcc/topo"
)

// Floor is a GraphCC policy with a floor: every interval it runs a base
// policy (a tuned fixed configuration, typically) and the model, and
// every agent port keeps the base's setting, and with a host head every
// host its base constants, unless the model is confident that its own
// choice is better there. Confidence is the Q-gap: the model's Q value of
// its greedy action less its Q value of the base's action must exceed the
// margin. So a margin of +Inf is the base exactly and a margin of -Inf the
// model (from the base's initial settings on). FloorGates gives the host
// agents a margin of their own and may hold everything on the base while a
// link is down.
//
// The base's action of a port is the action of the model's set nearest to
// the base's setting at the port's rate (ActionSet.Nearest: log2 distance
// of the thresholds, pmax in steps of 0.25); of a host, the host table's
// nearest (HostTable.Nearest: log distance of the five constants). When
// the base's setting is not an action, the port keeps the base's own
// setting and only its Q value is read through the nearest action. The
// nearest actions are recomputed only when the base's setting of a port
// changes, so a fixed base costs nothing per step; Decide and DecideHosts
// do not allocate.
//
// The base runs on settings of its own: it sees its own last settings,
// not the ports' (which may be the model's), as if it were running alone.
// The base's hosts' constants are those it decides every interval if it
// is a control.HostDecider, else those the hosts start with (its
// control.HostTuner constants, or the hardware's), read at the first
// DecideHosts.
type Floor struct {
	g       *GraphCC
	base    control.Policy
	baseHD  control.HostDecider // base's host decider, nil if it decides none
	gates   FloorGates
	links   linkGate      // the hold on link events (gates.HoldLinks)
	held    bool          // the last Decide held every agent on the base (links)
	start   []control.ECN // the base's initial settings, by topo.PortID
	ecn     []control.ECN // the base's current settings, by topo.PortID
	ports   portGate      // the switch ports' gate
	hosts   []control.HostParams
	hgate   hostGate // the host agents' gate
	hostsOK bool     // hosts holds the base's constants
	model   []bool   // per agent, then per host agent: the model's choice applied at the last step
}

// NewFloor returns the policy that holds g's agents at base's settings
// unless g's Q-gap over base's action exceeds the margin of gates (Floor)
// and no other gate of gates holds them. start is base's initial setting
// of every port (by topo.PortID), the run's; nil means
// control.StaticSettings of f. No margin may be NaN.
func NewFloor(g *GraphCC, base control.Policy, start []control.ECN, f *topo.Fabric, gates FloorGates) (*Floor, error) {
	if g == nil || base == nil {
		return nil, errors.New("floor: needs a model and a base policy")
	}
	if err := gates.check(); err != nil {
		return nil, err
	}
	if start == nil {
		start = control.StaticSettings(f)
	}
	if len(start) != len(f.Ports) {
		return nil, fmt.Errorf("floor: %d base settings for %d ports", len(start), len(f.Ports))
	}
	if len(start) != g.fz.ports {
		return nil, fmt.Errorf("floor: a fabric of %d ports, the model's policy is on one of %d", len(start), g.fz.ports)
	}
	fl := &Floor{
		g: g, base: base, gates: gates, start: slices.Clone(start), ecn: slices.Clone(start),
		ports: newPortGate(g.m.ActionSet, g.agents, g.rates, start),
		hosts: make([]control.HostParams, len(start)), hgate: newHostGate(len(g.hosts)),
		model: make([]bool, len(g.agents)+len(g.hosts)),
	}
	fl.baseHD, _ = control.HostDeciderOf(base)
	return fl, nil
}

// Gate reports whether a model whose greedy action has Q value qModel and
// whose base action has Q value qBase departs from the base under margin:
// qModel-qBase > margin. A NaN gap never departs.
func Gate(qModel, qBase float32, margin float64) bool {
	return float64(qModel)-float64(qBase) > margin
}

// Decide runs the base on its own settings and the model on t, and
// writes into ecn the base's settings with every agent port whose Q-gap
// passes the gate (Gate) on the model's setting instead.
func (fl *Floor) Decide(t *control.Telemetry, ecn []control.ECN) {
	g := fl.g
	checkLen("ECN settings", len(ecn), len(fl.ecn))
	fl.base.Decide(t, fl.ecn)
	g.fz.Observe(t)
	g.inf.Greedy(g.fz.Features(), g.actions)
	copy(ecn, fl.ecn)
	fl.held = fl.gates.HoldLinks && fl.links.holds(t, fl.gates.LinkHold)
	n := len(g.agents)
	fl.ports.decide(g.m.ActionSet, g.m.Actions, g.agents, g.rates, g.inf.Q(), g.actions[:n],
		fl.ecn, fl.gates.Margin, fl.held, fl.model[:n], ecn)
}

// DecidesHosts reports whether the model has a host head or the base
// decides the hosts' constants.
func (fl *Floor) DecidesHosts() bool { return fl.g.DecidesHosts() || fl.baseHD != nil }

// DecideHosts writes into hosts the base's constants of every host, with
// every host agent whose Q-gap of the last Decide passes the gate on the
// model's host action instead. A host on the base keeps hosts' value when
// the base decides no hosts' constants (the constants it started with).
func (fl *Floor) DecideHosts(t *control.Telemetry, hosts []control.HostParams) {
	g := fl.g
	checkLen("host settings", len(hosts), len(fl.hosts))
	if !fl.hostsOK {
		copy(fl.hosts, hosts)
		fl.hostsOK = true
	}
	if fl.baseHD != nil {
		fl.baseHD.DecideHosts(t, fl.hosts)
		copy(hosts, fl.hosts)
	}
	if !g.DecidesHosts() {
		return
	}
	n := len(g.agents)
	fl.hgate.decide(g.m.HostTable, g.m.HostActions, g.hosts, g.inf.Q()[n*g.m.Actions:], g.actions[n:],
		fl.hosts, fl.gates.HostMargin, fl.held, fl.model[n:], hosts)
}

// HostParams returns the base's fixed hosts' constants, if it has them
// (control.HostTuner): the hosts start with them.
func (fl *Floor) HostParams() (control.HostParams, bool) { return control.HostParamsOf(fl.base) }

// Reset forgets the model's feature history and the base's hosts'
// constants, and puts the base back on its initial settings, for a new
// run. A base that keeps state of its own must be reset by its owner.
func (fl *Floor) Reset() {
	fl.g.Reset()
	copy(fl.ecn, fl.start)
	clear(fl.model)
	fl.links, fl.held = linkGate{}, false
	fl.hostsOK, fl.hgate.set = false, false
}

// Departed returns, for the last step, whether each agent (in the order
// of GraphCC.Agents) and then each host agent (in the order of
// GraphCC.Hosts) took the model's choice rather than the base's. The
// slice is the policy's own: read it, do not keep it past the next step.
func (fl *Floor) Departed() []bool { return fl.model }

// GraphCC returns the model's policy.
func (fl *Floor) GraphCC() *GraphCC { return fl.g }

// Base returns the base policy.
func (fl *Floor) Base() control.Policy { return fl.base }

// Gates returns the floor's gates.
func (fl *Floor) Gates() FloorGates { return fl.gates }

// Start returns the base's initial settings, by topo.PortID. The slice is
// the policy's own: read it, do not change it.
func (fl *Floor) Start() []control.ECN { return fl.start }

var (
	_ control.HostDecider = (*Floor)(nil)
	_ control.HostTuner   = (*Floor)(nil)
)
