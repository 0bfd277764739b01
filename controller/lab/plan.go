package lab

import (
	"fmt"
	"net"
	"net/netip"

	"graphcc/topo"
)

// Testbed naming and numbering. Every part of the testbed (the lab that
// builds namespaces and links, the P4Runtime programming, the host
// generators and the agent loop) derives names, addresses and BMv2 port
// numbers from one Plan, so they agree by construction.
const (
	// DefaultName is the lab name used when none is given; it prefixes every
	// namespace the lab creates.
	DefaultName = "gcc"
	// HostIface is the name of a host's NIC inside its namespace.
	HostIface = "eth0"
	// GRPCAddr is where each simple_switch_grpc serves P4Runtime, inside its
	// switch's namespace (every switch has its own loopback).
	GRPCAddr = "127.0.0.1:9559"
	// ThriftPort is each switch's Thrift runtime port, inside its namespace.
	ThriftPort = 9090
	// HostPrefixLen is the prefix length of host addresses: all hosts share
	// one subnet, 10.0.0.0/8, and reach each other through the fabric.
	HostPrefixLen = 8
)

// FabricMAC is the destination MAC address of every frame a host sends.
// It is no interface's address: switches forward on IPv4 only, and a
// receiving host's kernel drops the frames as addressed to another host
// (so it never answers them), while its packet socket still reads them.
var FabricMAC = net.HardwareAddr{0x02, 0xfa, 0xb0, 0x00, 0x00, 0x01}

// Plan is a fabric's testbed layout: a namespace per switch and per host, a
// veth pair per link, BMv2 port numbers and host addresses.
type Plan struct {
	Lab      string
	Fabric   *topo.Fabric
	Switches []SwitchPlan // in topo.Fabric.Switches order
	Hosts    []HostPlan   // in topo.Fabric.Hosts order

	portOwner []portRef // by topo.PortID: the switch port or host that sends on it
}

// SwitchPlan is one BMv2 switch.
type SwitchPlan struct {
	Node     topo.NodeID
	Name     string // the node's name, "leaf0"
	Netns    string // "<lab>-leaf0"
	DeviceID uint64 // P4Runtime device id: index in Plan.Switches + 1
	Ports    []PortPlan
}

// PortPlan is one port of a switch: the egress port topo.Port of the
// switch's link, the BMv2 port number and the veth inside the switch's
// namespace. Its telemetry and ECN setting are those of Port.
type PortPlan struct {
	Port  topo.PortID // egress port of the switch on this link
	Num   uint32      // BMv2 port number: 1, 2, … in topo.Fabric.Out order
	Iface string      // "p1", "p2", …
	Peer  topo.NodeID // the node at the other end
}

// HostPlan is one host.
type HostPlan struct {
	Node  topo.NodeID
	Name  string // "h0"
	Netns string // "<lab>-h0"
	Iface string // HostIface
	IP    netip.Addr
	MAC   net.HardwareAddr
	Port  topo.PortID // the host's egress port (its NIC link)
}

type portRef struct {
	sw, port int // index into Switches and its Ports, or sw = -1 for a host port
}

// MaxNetnsName is the longest namespace name the plan accepts (a Linux
// interface-name-like limit keeps `ip netns` output readable; the kernel
// itself allows longer bind-mount names).
const MaxNetnsName = 31

// NewPlan lays out fabric f for lab (DefaultName if empty). Hosts must have
// exactly one link (topo guarantees it) and there may be at most 2^24-2
// hosts.
func NewPlan(lab string, f *topo.Fabric) (*Plan, error) {
	if lab == "" {
		lab = DefaultName
	}
	if !validLabName(lab) {
		return nil, fmt.Errorf("lab name %q: want 1-12 letters, digits or '-', starting with a letter", lab)
	}
	hosts := f.Hosts()
	if len(hosts) > 1<<24-2 {
		return nil, fmt.Errorf("fabric has %d hosts, at most %d fit in 10.0.0.0/8", len(hosts), 1<<24-2)
	}
	p := &Plan{Lab: lab, Fabric: f, portOwner: make([]portRef, len(f.Ports))}
	for i := range p.portOwner {
		p.portOwner[i] = portRef{sw: -1, port: -1}
	}
	for i, n := range f.Switches() {
		sp := SwitchPlan{Node: n, Name: f.Nodes[n].Name, Netns: lab + "-" + f.Nodes[n].Name, DeviceID: uint64(i) + 1}
		for k, port := range f.Out(n) {
			sp.Ports = append(sp.Ports, PortPlan{
				Port: port, Num: uint32(k) + 1, Iface: fmt.Sprintf("p%d", k+1), Peer: f.Ports[port].Dst,
			})
			p.portOwner[port] = portRef{sw: i, port: k}
		}
		if len(sp.Netns) > MaxNetnsName {
			return nil, fmt.Errorf("namespace name %q is longer than %d bytes", sp.Netns, MaxNetnsName)
		}
		p.Switches = append(p.Switches, sp)
	}
	for i, n := range hosts {
		v := uint32(i) + 1
		hp := HostPlan{
			Node: n, Name: f.Nodes[n].Name, Netns: lab + "-" + f.Nodes[n].Name, Iface: HostIface,
			IP:   netip.AddrFrom4([4]byte{10, byte(v >> 16), byte(v >> 8), byte(v)}),
			MAC:  net.HardwareAddr{0x02, 0x00, 0x00, byte(v >> 16), byte(v >> 8), byte(v)},
			Port: f.HostPort(n),
		}
		if len(hp.Netns) > MaxNetnsName {
			return nil, fmt.Errorf("namespace name %q is longer than %d bytes", hp.Netns, MaxNetnsName)
		}
		p.Hosts = append(p.Hosts, hp)
	}
	return p, nil
}

func validLabName(s string) bool {
	if len(s) == 0 || len(s) > 12 {
		return false
	}
	for i, c := range s {
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z':
		case i > 0 && (c >= '0' && c <= '9' || c == '-'):
		default:
			return false
		}
	}
	return true
}

// SwitchPort returns the switch (index into Switches) and port (index into
// its Ports) whose egress is port, or ok = false if port is a host's.
func (p *Plan) SwitchPort(port topo.PortID) (sw, idx int, ok bool) {
	r := p.portOwner[port]
	return r.sw, r.port, r.sw >= 0
}

// Host returns the plan of host node n, or nil if n is not a host.
func (p *Plan) Host(n topo.NodeID) *HostPlan {
	for i := range p.Hosts {
		if p.Hosts[i].Node == n {
			return &p.Hosts[i]
		}
	}
	return nil
}

// Namespaces returns every namespace of the plan: switches, then hosts.
func (p *Plan) Namespaces() []string {
	ns := make([]string, 0, len(p.Switches)+len(p.Hosts))
	for _, s := range p.Switches {
		ns = append(ns, s.Netns)
	}
	for _, h := range p.Hosts {
		ns = append(ns, h.Netns)
	}
	return ns
}

// Iface returns the namespace and interface name of the sending end of
// port: a switch port's veth or a host's NIC.
func (p *Plan) Iface(port topo.PortID) (netns, iface string) {
	if sw, k, ok := p.SwitchPort(port); ok {
		return p.Switches[sw].Netns, p.Switches[sw].Ports[k].Iface
	}
	h := p.Host(p.Fabric.Ports[port].Src)
	return h.Netns, h.Iface
}
