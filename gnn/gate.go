package gnn

import (
	"errors"
	"fmt"
	"math"

	"graphcc/control"
	"graphcc/topo"
)

// FloorGates are the gates of a Floor: when a switch port or a host agent
// may leave the base's setting for the model's. The zero value departs
// wherever the Q-gap is positive, with no hold; UniformGates is one margin
// for both heads.
type FloorGates struct {
	// Margin is the Q-gap a switch port's greedy action must exceed over
	// the base's action to depart (Gate).
	Margin float64
	// HostMargin is the Q-gap a host agent's greedy host action must
	// exceed over the base's host action to depart. The two heads'
	// outputs are on different scales, so they take margins of their own.
	HostMargin float64
	// HoldLinks holds every port and host on the base while any port of
	// the fabric reports its link down (control.PortSample.LinkDown) and
	// for LinkHold picoseconds after the last link came back: the model
	// was not trained on the routing of a fabric that loses a link during
	// the run.
	HoldLinks bool
	// LinkHold is how long after the last link came back the hold lasts,
	// picoseconds (with HoldLinks; 0: only while a link is down).
	LinkHold int64
}

// UniformGates returns the gates of one margin for both heads, no hold.
func UniformGates(margin float64) FloorGates {
	return FloorGates{Margin: margin, HostMargin: margin}
}

// check reports gates that no Floor can run: a NaN margin or a negative
// hold.
func (gs FloorGates) check() error {
	if math.IsNaN(gs.Margin) || math.IsNaN(gs.HostMargin) {
		return errors.New("floor: margin is NaN")
	}
	if gs.LinkHold < 0 {
		return fmt.Errorf("floor: negative link hold %d ps", gs.LinkHold)
	}
	return nil
}

// linkGate is a Floor's hold on link events (FloorGates.HoldLinks): the
// end of the last hold, in picoseconds of fabric time.
type linkGate struct {
	until int64
	set   bool
}

// holds reports whether the fabric of t is held on the base at t.Now:
// a port of t reports its link down, or one did less than hold
// picoseconds ago.
func (lg *linkGate) holds(t *control.Telemetry, hold int64) bool {
	for i := range t.Ports {
		if t.Ports[i].LinkDown {
			lg.until, lg.set = t.Now+hold, true
			return true
		}
	}
	return lg.set && t.Now < lg.until
}

// portGate is the floor's gate over a set of switch ports (a Floor's
// agents, or one switch's Agent's egress ports): per port, the model's
// action nearest to the base's setting, recomputed only when that setting
// changes. The central Floor and the per-switch agents (AgentFloor) run
// this one gate.
type portGate struct {
	near   []int         // per port: the action nearest to nearOf
	nearOf []control.ECN // per port: the base setting near was computed for
}

// newPortGate returns the gate of ports (rates per port) whose base
// settings (by topo.PortID) are base.
func newPortGate(set ActionSet, ports []topo.PortID, rates []int64, base []control.ECN) portGate {
	pg := portGate{near: make([]int, len(ports)), nearOf: make([]control.ECN, len(ports))}
	for i, p := range ports {
		pg.nearOf[i] = base[p]
		pg.near[i] = set.Nearest(base[p], rates[i])
	}
	return pg
}

// decide writes into ecn (by topo.PortID) every port's setting: the
// base's (base, by topo.PortID), or the model's greedy action (actions,
// per port) where the Q-gap of its row of q (na values per port)
// passes Gate under margin and held is false. model records, per port,
// which it took. It does not allocate.
func (pg *portGate) decide(set ActionSet, na int, ports []topo.PortID, rates []int64, q []float32, actions []int,
	base []control.ECN, margin float64, held bool, model []bool, ecn []control.ECN) {
	for i, p := range ports {
		if base[p] != pg.nearOf[i] {
			pg.nearOf[i] = base[p]
			pg.near[i] = set.Nearest(base[p], rates[i])
		}
		row := q[i*na : (i+1)*na]
		a := actions[i]
		model[i] = !held && Gate(row[a], row[pg.near[i]], margin)
		if model[i] {
			ecn[p] = set.Setting(a, rates[i])
		} else {
			ecn[p] = base[p]
		}
	}
}

// hostGate is the floor's gate over a set of host agents: per host, the
// host action nearest to the base's constants, recomputed only when they
// change.
type hostGate struct {
	near   []int                // per host: the host action nearest to nearOf
	nearOf []control.HostParams // per host: the base constants near was computed for
	set    bool                 // near has been computed
}

// newHostGate returns the gate of n host agents.
func newHostGate(n int) hostGate {
	return hostGate{near: make([]int, n), nearOf: make([]control.HostParams, n)}
}

// decide writes into hosts (by topo.PortID) every host's constants: the
// base's (base, by topo.PortID), or those of the model's greedy host
// action (actions, per host) where the Q-gap of its row of q (HostActions
// values per host) passes Gate under margin and held is false. model
// records, per host, which it took. It does not allocate.
func (hg *hostGate) decide(table HostTable, nh int, hostPorts []topo.PortID, q []float32, actions []int,
	base []control.HostParams, margin float64, held bool, model []bool, hosts []control.HostParams) {
	for j, p := range hostPorts {
		if !hg.set || base[p] != hg.nearOf[j] {
			hg.nearOf[j] = base[p]
			hg.near[j] = table.Nearest(base[p])
		}
		row := q[j*nh : (j+1)*nh]
		a := actions[j]
		model[j] = !held && Gate(row[a], row[hg.near[j]], margin)
		if model[j] {
			hosts[p] = table.Action(a)
		} else {
			hosts[p] = base[p]
		}
	}
	hg.set = true
}
