package topo

import (
	"fmt"
	"math"
	"math/bits"
	"slices"
	"strings"
)

// defaultBuffer is the shared buffer per switch when none is given: 32 MiB,
// HPCC's BUFFER_SIZE 32.
const defaultBuffer int64 = 32 * 1024 * 1024

// rttPacketBytes is the packet size whose per-hop serialization time counts
// in a base RTT (HPCC's packet_payload_size).
const rttPacketBytes = 1000

// Fabric is a topology with its routing. Build one with Clos or ReadTopology
// (or New); treat it and every slice it returns as read-only after.
type Fabric struct {
	Nodes  []Node // index = NodeID
	Links  []Link // index = LinkID
	Ports  []Port // index = PortID, len = 2*len(Links)
	Buffer int64  // shared buffer bytes per switch (default 32 MiB = 32*1024*1024, HPCC's BUFFER_SIZE 32)

	out, in  [][]PortID // per node: egress / ingress ports, increasing id
	hosts    []NodeID
	switches []NodeID
	hostIdx  []int32 // per node: index into hosts, or -1

	// Next hops of node n towards host index t:
	// hops[hopStart[t*N+n]:hopStart[t*N+n+1]].
	hopStart []int32
	hops     []PortID
	// Per ordered host pair, index s*H+t: base RTT and bottleneck rate.
	rtt, bw []int64
	maxBDP  int64

	agents     []PortID
	graph      *Graph
	nodeByName map[string]NodeID
	linkByName map[string]LinkID
}

// noLinkError reports a host without any link.
type noLinkError struct {
	host NodeID
	name string
}

func (e *noLinkError) Error() string { return fmt.Sprintf("host %s has no link", e.name) }

// unreachableError reports a host pair without a path (paths never transit
// a host).
type unreachableError struct {
	a, b         NodeID
	aName, bName string
}

func (e *unreachableError) Error() string {
	return fmt.Sprintf("host %s cannot reach %s", e.aName, e.bName)
}

// New builds a Fabric from nodes and links (both indexed by their IDs, which
// must equal their positions) and computes the ports, the routing and the
// agent graph. A link's Name may be empty and is then set to "<A>-<B>";
// otherwise it must be exactly that. Node names must be unique, non-empty and
// free of '-' and white space. buffer 0 means the default 32 MiB. New rejects
// a link to itself, an unknown node, a non-positive rate, a negative delay, a
// duplicate link (either direction), a host
// without a link, and a host with no path to some other host. The slices are
// copied.
func New(nodes []Node, links []Link, buffer int64) (*Fabric, error) {
	f, err := build(nodes, links, buffer)
	if err != nil {
		return nil, fmt.Errorf("fabric: %w", err)
	}
	return f, nil
}

func build(nodes []Node, links []Link, buffer int64) (*Fabric, error) {
	if buffer < 0 {
		return nil, fmt.Errorf("negative buffer %d", buffer)
	}
	if buffer == 0 {
		buffer = defaultBuffer
	}
	if len(nodes) > math.MaxInt32 {
		return nil, fmt.Errorf("%d nodes, at most %d", len(nodes), math.MaxInt32)
	}
	if len(links) > math.MaxInt32/2 {
		return nil, fmt.Errorf("%d links, at most %d", len(links), math.MaxInt32/2)
	}
	f := &Fabric{
		Nodes:      slices.Clone(nodes),
		Links:      slices.Clone(links),
		Ports:      make([]Port, 2*len(links)),
		Buffer:     buffer,
		out:        make([][]PortID, len(nodes)),
		in:         make([][]PortID, len(nodes)),
		hostIdx:    make([]int32, len(nodes)),
		nodeByName: make(map[string]NodeID, len(nodes)),
		linkByName: make(map[string]LinkID, 2*len(links)),
	}
	if err := f.addNodes(); err != nil {
		return nil, err
	}
	seen := make(map[nodePair]LinkID, len(links))
	for i := range f.Links {
		if err := f.addLink(i, seen); err != nil {
			return nil, err
		}
	}
	for _, h := range f.hosts {
		if len(f.out[h]) == 0 {
			return nil, &noLinkError{host: h, name: f.Nodes[h].Name}
		}
	}
	for _, p := range f.Ports {
		if f.Nodes[p.Src].Switch {
			f.agents = append(f.agents, p.ID)
		}
	}
	if err := f.route(); err != nil {
		return nil, err
	}
	var csr int64
	for _, o := range f.out {
		csr += int64(len(o)) * int64(len(o))
	}
	if csr > math.MaxInt32 {
		return nil, fmt.Errorf("agent graph of %d neighbour entries is too large", csr)
	}
	f.graph = f.buildGraph()
	return f, nil
}

// addNodes checks f.Nodes and indexes them by name and as hosts and
// switches.
func (f *Fabric) addNodes() error {
	for i := range f.Nodes {
		n := &f.Nodes[i]
		if n.ID != NodeID(i) {
			return fmt.Errorf("node at index %d has id %d", i, n.ID)
		}
		if n.Name == "" {
			return fmt.Errorf("node %d has no name", i)
		}
		if strings.ContainsAny(n.Name, "- \t\r\n") {
			return fmt.Errorf("node %d name %q contains '-' or white space", i, n.Name)
		}
		if _, dup := f.nodeByName[n.Name]; dup {
			return fmt.Errorf("duplicate node name %q", n.Name)
		}
		f.nodeByName[n.Name] = n.ID
		if n.Switch {
			f.hostIdx[i] = -1
			f.switches = append(f.switches, n.ID)
		} else {
			f.hostIdx[i] = int32(len(f.hosts))
			f.hosts = append(f.hosts, n.ID)
		}
	}
	return nil
}

// addLink checks link i of f.Links (seen holds the links before it, by
// their ends), names it if it has no name, and adds its two ports.
func (f *Fabric) addLink(i int, seen map[nodePair]LinkID) error {
	l := &f.Links[i]
	if l.ID != LinkID(i) {
		return fmt.Errorf("link at index %d has id %d", i, l.ID)
	}
	if l.A < 0 || int(l.A) >= len(f.Nodes) {
		return fmt.Errorf("link %d: unknown node %d", i, l.A)
	}
	if l.B < 0 || int(l.B) >= len(f.Nodes) {
		return fmt.Errorf("link %d: unknown node %d", i, l.B)
	}
	an, bn := f.Nodes[l.A].Name, f.Nodes[l.B].Name
	name := an + "-" + bn
	if l.A == l.B {
		return fmt.Errorf("link %d (%s): link to itself", i, name)
	}
	if l.Name == "" {
		l.Name = name
	} else if l.Name != name {
		return fmt.Errorf("link %d is named %q, want %q", i, l.Name, name)
	}
	if l.Rate <= 0 {
		return fmt.Errorf("link %s: non-positive rate %d", name, l.Rate)
	}
	if l.Delay < 0 {
		return fmt.Errorf("link %s: negative delay %d", name, l.Delay)
	}
	k := nodePair{min(l.A, l.B), max(l.A, l.B)}
	if j, dup := seen[k]; dup {
		return fmt.Errorf("duplicate link %s (also link %d, %s)", name, j, f.Links[j].Name)
	}
	seen[k] = l.ID
	f.linkByName[name] = l.ID
	f.linkByName[bn+"-"+an] = l.ID
	ab, ba := PortID(2*i), PortID(2*i+1)
	f.Ports[ab] = Port{ID: ab, Link: l.ID, Src: l.A, Dst: l.B, Rate: l.Rate, Delay: l.Delay}
	f.Ports[ba] = Port{ID: ba, Link: l.ID, Src: l.B, Dst: l.A, Rate: l.Rate, Delay: l.Delay}
	// Ports are visited in increasing id, so these lists stay sorted.
	f.out[l.A] = append(f.out[l.A], ab)
	f.in[l.B] = append(f.in[l.B], ab)
	f.out[l.B] = append(f.out[l.B], ba)
	f.in[l.A] = append(f.in[l.A], ba)
	return nil
}

// satAdd adds non-negative a and b, saturating at math.MaxInt64.
func satAdd(a, b int64) int64 {
	if a > math.MaxInt64-b {
		return math.MaxInt64
	}
	return a + b
}

// serialization returns the time in ps to send rttPacketBytes at rate bps.
func serialization(rate int64) int64 {
	return rttPacketBytes * 8 * Second / rate
}

// route computes, as HPCC's CalculateRoutes does, a BFS from every host that
// expands only switches (paths never transit a host): the next hops of every
// node towards that host are the neighbours one hop closer. Along the way it
// computes the base RTT and bottleneck of every host pair: of all the
// shortest paths it takes the one with the largest base RTT, and among those
// the one with the smallest bottleneck (the most conservative choice, and
// independent of neighbour order, unlike HPCC's first-discovered path; the
// two agree whenever equal-cost paths have equal links, as in a Clos).
func (f *Fabric) route() error {
	n, h := len(f.Nodes), len(f.hosts)
	if int64(n)*int64(h) >= math.MaxInt32 || int64(h)*int64(len(f.Ports)) >= math.MaxInt32 {
		return fmt.Errorf("%d nodes and %d hosts give too large routing tables", n, h)
	}
	f.hopStart = make([]int32, 0, n*h+1)
	f.rtt = make([]int64, h*h)
	f.bw = make([]int64, h*h)
	dist := make([]int32, n)
	rtt := make([]int64, n)
	bw := make([]int64, n)
	hops := make([][]PortID, n)
	var queue, order []NodeID
	for t, dst := range f.hosts {
		for i := range dist {
			dist[i] = -1
			hops[i] = hops[i][:0]
		}
		queue = append(queue[:0], dst)
		order = append(order[:0], dst)
		dist[dst] = 0
		for i := 0; i < len(queue); i++ {
			now := queue[i]
			for _, p := range f.out[now] {
				next := f.Ports[p].Dst
				if dist[next] < 0 {
					dist[next] = dist[now] + 1
					order = append(order, next)
					if f.Nodes[next].Switch {
						queue = append(queue, next)
					}
				}
				if dist[next] == dist[now]+1 {
					hops[next] = append(hops[next], p.Reverse())
				}
			}
		}
		for _, src := range f.hosts {
			if dist[src] < 0 {
				return &unreachableError{a: dst, b: src, aName: f.Nodes[dst].Name, bName: f.Nodes[src].Name}
			}
		}
		rtt[dst], bw[dst] = 0, math.MaxInt64
		for _, v := range order[1:] {
			slices.Sort(hops[v])
			best, bbw := int64(-1), int64(0)
			for _, p := range hops[v] {
				port := &f.Ports[p]
				r := satAdd(rtt[port.Dst], satAdd(satAdd(port.Delay, port.Delay), serialization(port.Rate)))
				b := min(bw[port.Dst], port.Rate)
				if r > best || r == best && b < bbw {
					best, bbw = r, b
				}
			}
			rtt[v], bw[v] = best, bbw
		}
		for v := range n {
			f.hopStart = append(f.hopStart, int32(len(f.hops)))
			f.hops = append(f.hops, hops[v]...)
		}
		for s, src := range f.hosts {
			if src != dst {
				f.rtt[s*h+t], f.bw[s*h+t] = rtt[src], bw[src]
			}
		}
	}
	f.hopStart = append(f.hopStart, int32(len(f.hops)))
	for s := range f.hosts {
		for t := range h {
			if s != t {
				// HPCC's maxBdp: base RTT times the path's bottleneck (pairBw)
				f.maxBDP = max(f.maxBDP, bdp(f.rtt[s*h+t], f.bw[s*h+t]))
			}
		}
	}
	return nil
}

// bdp returns rtt (ps) * rate (bps) / 8 / 1e12 in bytes, rounded down,
// saturating at math.MaxInt64.
func bdp(rtt, rate int64) int64 {
	hi, lo := bits.Mul64(uint64(rtt), uint64(rate))
	const d = 8 * uint64(Second)
	if hi >= d {
		return math.MaxInt64
	}
	q, _ := bits.Div64(hi, lo, d)
	if q > math.MaxInt64 {
		return math.MaxInt64
	}
	return int64(q)
}

// Hosts returns the hosts in increasing id order.
func (f *Fabric) Hosts() []NodeID { return f.hosts[:len(f.hosts):len(f.hosts)] }

// Switches returns the switches in increasing id order.
func (f *Fabric) Switches() []NodeID { return f.switches[:len(f.switches):len(f.switches)] }

// Out returns the egress ports of n in increasing id order.
func (f *Fabric) Out(n NodeID) []PortID { return f.out[n][:len(f.out[n]):len(f.out[n])] }

// HostPort returns a host's first NIC egress port (hosts normally have one
// link), or -1 if h is a switch.
func (f *Fabric) HostPort(h NodeID) PortID {
	if f.Nodes[h].Switch {
		return -1
	}
	return f.out[h][0]
}

// NextHops returns the egress ports of at, in increasing id order, that lie on
// a shortest (hop-count) path towards host dst, as HPCC's CalculateRoute BFS
// computes them; nil if at == dst or dst is not a host. It is a constant-time
// lookup into precomputed tables.
func (f *Fabric) NextHops(at, dst NodeID) []PortID {
	t := f.hostIdx[dst]
	if at == dst || t < 0 {
		return nil
	}
	i := int(t)*len(f.Nodes) + int(at)
	lo, hi := f.hopStart[i], f.hopStart[i+1]
	if lo == hi {
		return nil
	}
	return f.hops[lo:hi:hi]
}

// NodeByName returns the node called name.
func (f *Fabric) NodeByName(name string) (NodeID, bool) {
	id, ok := f.nodeByName[name]
	return id, ok
}

// LinkByName returns the link called name; both "a-b" and "b-a" name the link
// between a and b.
func (f *Fabric) LinkByName(name string) (LinkID, bool) {
	id, ok := f.linkByName[name]
	return id, ok
}

// pairIndex returns the index of the ordered host pair, or -1.
func (f *Fabric) pairIndex(src, dst NodeID) int {
	s, t := f.hostIdx[src], f.hostIdx[dst]
	if s < 0 || t < 0 || s == t {
		return -1
	}
	return int(s)*len(f.hosts) + int(t)
}

// BaseRTT returns the base RTT in ps from host src to host dst, HPCC's
// pairRtt: 2 * the sum of one-way delays + the sum over the hops of the
// serialization time of a 1000-byte packet. Where shortest paths differ it
// takes the largest (then, for Bottleneck, the one with the smallest
// bottleneck among those). It is 0 if src == dst or either is not a host.
func (f *Fabric) BaseRTT(src, dst NodeID) int64 {
	if i := f.pairIndex(src, dst); i >= 0 {
		return f.rtt[i]
	}
	return 0
}

// Bottleneck returns the smallest link rate in bps on the path BaseRTT uses
// (HPCC's pairBw); 0 if src == dst or either is not a host.
func (f *Fabric) Bottleneck(src, dst NodeID) int64 {
	if i := f.pairIndex(src, dst); i >= 0 {
		return f.bw[i]
	}
	return 0
}

// PathDelay returns the one-way propagation delay in ps from host src to
// host dst: the sum of the link delays along a shortest path, the largest
// where shortest paths differ (as BaseRTT). It is 0 if src == dst or either
// is not a host.
func (f *Fabric) PathDelay(src, dst NodeID) int64 {
	if f.pairIndex(src, dst) < 0 {
		return 0
	}
	memo := make(map[NodeID]int64)
	var from func(at NodeID) int64
	from = func(at NodeID) int64 {
		if at == dst {
			return 0
		}
		if d, ok := memo[at]; ok {
			return d
		}
		var d int64
		for _, p := range f.NextHops(at, dst) {
			d = max(d, satAdd(f.Ports[p].Delay, from(f.Ports[p].Dst)))
		}
		memo[at] = d
		return d
	}
	return from(src)
}

// MaxBDP returns, in bytes, the largest BaseRTT(src, dst) *
// Bottleneck(src, dst) / 8 / 1e12 over ordered host pairs, rounded down
// (HPCC's maxBdp). The GraphCC Clos gives 27500.
func (f *Fabric) MaxBDP() int64 { return f.maxBDP }

// Agents returns the ports whose source is a switch (one agent each), in
// increasing id order.
func (f *Fabric) Agents() []PortID { return f.agents[:len(f.agents):len(f.agents)] }

// PortName names port p by its ends, "leaf0->spine1": a name that stays
// the port's when other links fail (and ids are renumbered).
func (f *Fabric) PortName(p PortID) string {
	pt := f.Ports[p]
	return f.Nodes[pt.Src].Name + "->" + f.Nodes[pt.Dst].Name
}

// Graph returns the message-passing graph over all ports. It is computed once
// and shared: do not modify it.
func (f *Fabric) Graph() *Graph { return f.graph }
