package lab

import (
	"net/netip"
	"testing"

	"graphcc/topo"
)

func TestPlanDefaultClos(t *testing.T) {
	f, err := topo.Clos(topo.DefaultClos())
	if err != nil {
		t.Fatal(err)
	}
	p, err := NewPlan("", f)
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Switches) != 6 || len(p.Hosts) != 24 {
		t.Fatalf("%d switches, %d hosts", len(p.Switches), len(p.Hosts))
	}
	seen := map[string]bool{}
	for _, ns := range p.Namespaces() {
		if seen[ns] {
			t.Errorf("namespace %s twice", ns)
		}
		seen[ns] = true
	}
	if p.Switches[0].Netns != "gcc-"+p.Switches[0].Name || p.Switches[0].DeviceID != 1 {
		t.Errorf("first switch %+v", p.Switches[0])
	}
	// every port belongs to exactly one switch port or host, and the
	// switch ports are numbered 1..n in order
	agents := 0
	for i, sp := range p.Switches {
		for k, pp := range sp.Ports {
			if pp.Num != uint32(k+1) || f.Ports[pp.Port].Src != sp.Node || pp.Peer != f.Ports[pp.Port].Dst {
				t.Errorf("switch %s port %d: %+v", sp.Name, k, pp)
			}
			if sw, idx, ok := p.SwitchPort(pp.Port); !ok || sw != i || idx != k {
				t.Errorf("SwitchPort(%d) = %d, %d, %v", pp.Port, sw, idx, ok)
			}
			agents++
		}
	}
	if agents != len(f.Agents()) {
		t.Errorf("%d switch ports, %d agents", agents, len(f.Agents()))
	}
	ips := map[netip.Addr]bool{}
	for _, h := range p.Hosts {
		if ips[h.IP] || !netip.MustParsePrefix("10.0.0.0/8").Contains(h.IP) {
			t.Errorf("host %s address %v", h.Name, h.IP)
		}
		ips[h.IP] = true
		if _, _, ok := p.SwitchPort(h.Port); ok {
			t.Errorf("host %s port %d is a switch port", h.Name, h.Port)
		}
		if ns, ifc := p.Iface(h.Port); ns != h.Netns || ifc != HostIface {
			t.Errorf("Iface(host %s) = %s %s", h.Name, ns, ifc)
		}
		if p.Host(h.Node) == nil || p.Host(h.Node).Name != h.Name {
			t.Errorf("Host(%d) wrong", h.Node)
		}
	}
	if p.Hosts[0].IP != netip.MustParseAddr("10.0.0.1") {
		t.Errorf("first host %v", p.Hosts[0].IP)
	}
}

func TestPlanBadLab(t *testing.T) {
	f, err := topo.Clos(topo.DefaultClos())
	if err != nil {
		t.Fatal(err)
	}
	for _, lab := range []string{"1abc", "a b", "averyverylonglabname", "x/y"} {
		if _, err := NewPlan(lab, f); err == nil {
			t.Errorf("lab %q accepted", lab)
		}
	}
}
