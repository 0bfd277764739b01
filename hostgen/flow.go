package hostgen

import (
	"fmt"

	"graphcc/topo"
	"graphcc/trace"
)

// Flow is one flow of a testbed schedule: a trace.Flow (source and
// destination hosts, size, start in fabric picoseconds, destination port)
// with the queue pair that names it in every frame and its UDP source port.
type Flow struct {
	trace.Flow
	// QP is the flow's queue pair number, the BTH DestQP of its frames in
	// both directions: unique in the testbed and below 2^24.
	QP uint32
	// SPort is the UDP source port of the flow's frames; the FCT record
	// reports it.
	SPort uint16
}

// MaxFlows is the most flows a schedule can hold: queue pairs are 24 bits.
const MaxFlows = 1 << 24

// firstSPort is the first source port of each host pair, as the simulator
// (and HPCC) number them.
const firstSPort = 10000

// Schedule turns a trace into a testbed schedule: flow i gets queue pair
// base+i and the source port the simulator gives it (each ordered host
// pair numbers its flows from 10000 in trace order), so the FCT records of
// both fabrics name flows alike. Successive runs on one fabric should use
// disjoint queue pairs (a base past the previous run's last), so that a
// frame a switch still holds from one run is foreign to the next rather
// than taken for one of its flows. Every flow must join two distinct hosts
// of f and have a positive size and a non-negative start.
func Schedule(f *topo.Fabric, trace []trace.Flow, base uint32) ([]Flow, error) {
	if int64(base)+int64(len(trace)) > MaxFlows {
		return nil, fmt.Errorf("schedule: %d flows from queue pair %d: queue pairs end at %d", len(trace), base, MaxFlows-1)
	}
	next := make(map[[2]topo.NodeID]int)
	out := make([]Flow, len(trace))
	for i, fl := range trace {
		if err := checkFlow(f, fl); err != nil {
			return nil, fmt.Errorf("schedule: flow %d: %w", i, err)
		}
		key := [2]topo.NodeID{fl.Src, fl.Dst}
		sp, ok := next[key]
		if !ok {
			sp = firstSPort
		}
		if sp > 0xffff {
			return nil, fmt.Errorf("schedule: flow %d: host pair %s -> %s has more than %d flows",
				i, f.Nodes[fl.Src].Name, f.Nodes[fl.Dst].Name, 0x10000-firstSPort)
		}
		next[key] = sp + 1
		out[i] = Flow{Flow: fl, QP: base + uint32(i), SPort: uint16(sp)}
	}
	return out, nil
}

// checkFlow reports why fl cannot run on f.
func checkFlow(f *topo.Fabric, fl trace.Flow) error {
	n := topo.NodeID(len(f.Nodes))
	switch {
	case fl.Src < 0 || fl.Src >= n || fl.Dst < 0 || fl.Dst >= n:
		return fmt.Errorf("node out of range (%d -> %d)", fl.Src, fl.Dst)
	case f.Nodes[fl.Src].Switch || f.Nodes[fl.Dst].Switch || fl.Src == fl.Dst:
		return fmt.Errorf("%s -> %s is not a pair of distinct hosts", f.Nodes[fl.Src].Name, f.Nodes[fl.Dst].Name)
	case fl.Size <= 0:
		return fmt.Errorf("size %d must be positive", fl.Size)
	case fl.Start < 0:
		return fmt.Errorf("start %d must not be negative", fl.Start)
	}
	return nil
}
