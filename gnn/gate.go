package gnn

import (
	"errors"
	"fmt"
	"math"

	"graphcc/control"
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
