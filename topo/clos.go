package topo

import "fmt"

// ClosConfig describes a 2-layer leaf-spine Clos: every leaf has
// HostsPerLeaf hosts and one link to every spine.
type ClosConfig struct {
	Leaves, Spines, HostsPerLeaf int
	HostRate, FabricRate         int64 // bps: host-leaf links, leaf-spine links
	LinkDelay                    int64 // ps, every link
	Buffer                       int64 // bytes per switch; 0 means the default 32 MiB
}

// DefaultClos returns the GraphCC setup: 4 leaves, 2 spines, 6 hosts per
// leaf, 25 Gbps host links, 100 Gbps leaf-spine links, 1 µs per link and a
// 32 MiB buffer per switch.
func DefaultClos() ClosConfig {
	return ClosConfig{
		Leaves:       4,
		Spines:       2,
		HostsPerLeaf: 6,
		HostRate:     25 * Gbps,
		FabricRate:   100 * Gbps,
		LinkDelay:    Microsecond,
		Buffer:       defaultBuffer,
	}
}

// Clos builds the Clos that c describes. Node ids follow HPCC's convention:
// hosts 0..N-1 ("h0".., leaf 0's first), then the leaves ("leaf0"..), then
// the spines ("spine0"..). Links: the host-leaf links first in host order
// ("h0-leaf0"), then the leaf-spine links leaf-major ("leaf0-spine0",
// "leaf0-spine1", "leaf1-spine0", ...).
func Clos(c ClosConfig) (*Fabric, error) {
	switch {
	case c.Leaves < 1:
		return nil, fmt.Errorf("clos: leaves must be at least 1, got %d", c.Leaves)
	case c.Spines < 1:
		return nil, fmt.Errorf("clos: spines must be at least 1, got %d", c.Spines)
	case c.HostsPerLeaf < 1:
		return nil, fmt.Errorf("clos: hosts per leaf must be at least 1, got %d", c.HostsPerLeaf)
	case c.HostRate <= 0:
		return nil, fmt.Errorf("clos: host rate must be positive, got %d", c.HostRate)
	case c.FabricRate <= 0:
		return nil, fmt.Errorf("clos: fabric rate must be positive, got %d", c.FabricRate)
	case c.LinkDelay < 0:
		return nil, fmt.Errorf("clos: link delay must not be negative, got %d", c.LinkDelay)
	case c.Buffer < 0:
		return nil, fmt.Errorf("clos: buffer must not be negative, got %d", c.Buffer)
	}
	const limit = 1 << 24
	if c.Leaves > limit || c.Spines > limit || c.HostsPerLeaf > limit ||
		int64(c.Leaves)*int64(c.HostsPerLeaf+c.Spines) > limit {
		return nil, fmt.Errorf("clos: %d leaves, %d spines and %d hosts per leaf are too many (at most %d links)",
			c.Leaves, c.Spines, c.HostsPerLeaf, limit)
	}
	hosts := c.Leaves * c.HostsPerLeaf
	nodes := make([]Node, 0, hosts+c.Leaves+c.Spines)
	for i := range hosts {
		nodes = append(nodes, Node{ID: NodeID(len(nodes)), Name: fmt.Sprintf("h%d", i)})
	}
	for i := range c.Leaves {
		nodes = append(nodes, Node{ID: NodeID(len(nodes)), Name: fmt.Sprintf("leaf%d", i), Switch: true})
	}
	for i := range c.Spines {
		nodes = append(nodes, Node{ID: NodeID(len(nodes)), Name: fmt.Sprintf("spine%d", i), Switch: true})
	}
	leaf := func(i int) NodeID { return NodeID(hosts + i) }
	spine := func(i int) NodeID { return NodeID(hosts + c.Leaves + i) }
	links := make([]Link, 0, hosts+c.Leaves*c.Spines)
	for i := range hosts {
		links = append(links, Link{ID: LinkID(len(links)), A: NodeID(i), B: leaf(i / c.HostsPerLeaf),
			Rate: c.HostRate, Delay: c.LinkDelay})
	}
	for l := range c.Leaves {
		for s := range c.Spines {
			links = append(links, Link{ID: LinkID(len(links)), A: leaf(l), B: spine(s),
				Rate: c.FabricRate, Delay: c.LinkDelay})
		}
	}
	f, err := New(nodes, links, c.Buffer)
	if err != nil {
		return nil, fmt.Errorf("clos: %w", err)
	}
	return f, nil
}
