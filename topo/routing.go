package topo

import (
	"fmt"
	"slices"
)

// Routing is the next-hop tables of a fabric in one state of its links: the
// shortest paths of the fabric with some links down, in the whole fabric's
// port ids. A simulation whose links fail and come back keeps every port of
// its fabric and routes new flows on the Routing of the links up at the
// time. Treat it as read-only.
type Routing struct {
	hostIdx  []int32 // per node: index into the hosts, or -1
	nodes    int
	hopStart []int32
	hops     []PortID
}

// NextHops returns the egress ports of at, in increasing id order, on a
// shortest path towards host dst in this state of the links, as
// Fabric.NextHops does with every link up; nil if at == dst or dst is not a
// host.
func (r *Routing) NextHops(at, dst NodeID) []PortID {
	t := r.hostIdx[dst]
	if at == dst || t < 0 {
		return nil
	}
	i := int(t)*r.nodes + int(at)
	lo, hi := r.hopStart[i], r.hopStart[i+1]
	if lo == hi {
		return nil
	}
	return r.hops[lo:hi:hi]
}

// Routing returns f's routing with every link up: its NextHops is f's.
func (f *Fabric) Routing() *Routing {
	return &Routing{hostIdx: f.hostIdx, nodes: len(f.Nodes), hopStart: f.hopStart, hops: f.hops}
}

// RoutingWithout returns the routing of f with the links down down (in any
// order, each at most once): the next hops FailLinks's fabric computes,
// mapped back to f's port ids. It fails as FailLinks does, on a link out of
// range or named twice and when the links down leave some host pair without
// a path.
func (f *Fabric) RoutingWithout(down []LinkID) (*Routing, error) {
	names := make([]string, len(down))
	for i, l := range down {
		if l < 0 || int(l) >= len(f.Links) {
			return nil, fmt.Errorf("routing: link %d out of range [0, %d)", l, len(f.Links))
		}
		names[i] = f.Links[l].Name
	}
	g, err := f.FailLinks(names...)
	if err != nil {
		return nil, err
	}
	// g's links are f's that are up, in order: g's link i is f's orig[i],
	// with the same ends, so g's port 2i+d is f's 2*orig[i]+d.
	orig := make([]LinkID, 0, len(g.Links))
	for _, l := range f.Links {
		if !slices.Contains(down, l.ID) {
			orig = append(orig, l.ID)
		}
	}
	r := &Routing{hostIdx: f.hostIdx, nodes: len(f.Nodes), hopStart: g.hopStart, hops: make([]PortID, len(g.hops))}
	for i, p := range g.hops {
		r.hops[i] = PortID(2*orig[p.Link()]) | p&1
	}
	return r, nil
}

// A LinkEvent is a link between two switches failing or coming back during
// a simulation (replay.Config.LinkEvents, whose doc says what it does).
type LinkEvent struct {
	At   int64  // fabric time, ps
	Link LinkID // a link between two switches
	Up   bool   // false: the link fails; true: it comes back
}
