package topo

// Time units, in picoseconds.
const (
	Picosecond  int64 = 1
	Nanosecond        = 1000 * Picosecond
	Microsecond       = 1000 * Nanosecond
	Millisecond       = 1000 * Microsecond
	Second            = 1000 * Millisecond
)

// Rate units, in bits per second.
const (
	Bps  int64 = 1
	Kbps       = 1000 * Bps
	Mbps       = 1000 * Kbps
	Gbps       = 1000 * Mbps
)

// NodeID indexes Fabric.Nodes.
type NodeID int32

// LinkID indexes Fabric.Links.
type LinkID int32

// PortID indexes Fabric.Ports. Link l gives the two directed ports 2l (from
// its A end to its B end) and 2l+1 (from B to A), so p^1 is the reverse of p.
type PortID int32

// Reverse returns the port that carries traffic the other way on p's link.
func (p PortID) Reverse() PortID { return p ^ 1 }

// Link returns the link that p belongs to.
func (p PortID) Link() LinkID { return LinkID(p >> 1) }

// Node is a host or a switch.
type Node struct {
	ID     NodeID
	Name   string // "h0", "leaf0", "spine1"; "n17" for nodes read from a file
	Switch bool
}

// Crosses reports whether path, a route's ports, uses link l in either
// direction.
func Crosses(path []PortID, l LinkID) bool {
	for _, p := range path {
		if p.Link() == l {
			return true
		}
	}
	return false
}

// Link is a full-duplex link between two nodes.
type Link struct {
	ID    LinkID
	Name  string // "<A name>-<B name>", e.g. "leaf0-spine1"
	A, B  NodeID
	Rate  int64 // bits per second, each direction
	Delay int64 // one-way propagation delay, picoseconds
}

// Port is one direction of a link: the egress port of Src towards Dst.
type Port struct {
	ID       PortID
	Link     LinkID
	Src, Dst NodeID
	Rate     int64 // bits per second
	Delay    int64 // picoseconds
}
