package lab

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"

	"github.com/vishvananda/netlink"
	"github.com/vishvananda/netns"
	"golang.org/x/sys/unix"

	"graphcc/namespace"
	"graphcc/topo"
)

// This file builds a lab's network: namespaces, veth pairs and host
// addressing.
//
// Host addressing: eth0 has the host's address with prefix HostPrefixLen,
// which gives the route to 10.0.0.0/8 on eth0, the host's MAC from the
// plan, and ARP off; every other host's address has a permanent neighbour
// entry for FabricMAC. So the kernel never sends or answers ARP on the
// fabric, and anything it sends to a peer goes to FabricMAC as hostgen's
// frames do. IPv6 is disabled in every namespace before any veth enters
// it (net.ipv6.conf.{all,default}.disable_ipv6 = 1), so no router
// solicitation or DAD probe ever reaches a switch.

// buildNetwork creates the namespaces, links and host addresses of l's
// plan, recording each namespace and link in the state file first.
// handles receives a handle per namespace.
func (l *Lab) buildNetwork(ctx context.Context, cfg *Config, handles map[string]netns.NsHandle) error {
	p := l.plan
	for _, name := range p.Namespaces() {
		if err := step(ctx, cfg, "netns "+name); err != nil {
			return err
		}
		l.state.Namespaces = append(l.state.Namespaces, name)
		if err := l.save(); err != nil {
			return err
		}
		h, err := createLabNetns(name)
		if err != nil {
			return err
		}
		handles[name] = h
	}
	for i, link := range p.Fabric.Links {
		ls := LinkState{Name: link.Name, Tmp: tmpLinkName(p.Lab, i)}
		if ls.Name == "" {
			ls.Name = fmt.Sprintf("link%d", i)
		}
		ls.A.Netns, ls.A.Iface = p.Iface(topo.PortID(2 * i))
		ls.B.Netns, ls.B.Iface = p.Iface(topo.PortID(2*i + 1))
		if err := step(ctx, cfg, "link "+ls.Name); err != nil {
			return err
		}
		l.state.Links = append(l.state.Links, ls)
		if err := l.save(); err != nil {
			return err
		}
		err := CreateVeth(Veth{Name: ls.A.Iface, NS: handles[ls.A.Netns]}, Veth{Name: ls.B.Iface, NS: handles[ls.B.Netns]}, ls.Tmp)
		if err != nil {
			return fmt.Errorf("link %s: %w", ls.Name, err)
		}
	}
	for _, h := range p.Hosts {
		l.state.Hosts = append(l.state.Hosts, HostState{Name: h.Name, Netns: h.Netns, Iface: h.Iface, IP: h.IP, MAC: h.MAC.String()})
	}
	if err := l.save(); err != nil {
		return err
	}
	for i := range p.Hosts {
		if err := step(ctx, cfg, "host "+p.Hosts[i].Name); err != nil {
			return err
		}
		if err := configureHost(handles[p.Hosts[i].Netns], &p.Hosts[i], p.Hosts); err != nil {
			return err
		}
	}
	return nil
}

// createLabNetns creates the named namespace name with IPv6 disabled and
// lo up, and returns a handle to it.
func createLabNetns(name string) (netns.NsHandle, error) {
	var h netns.NsHandle
	err := namespace.OnLockedThread(func() error {
		var err error
		if h, err = netns.NewNamed(name); err != nil { // this thread is now in it
			return err
		}
		for _, conf := range []string{"all", "default"} {
			err := os.WriteFile("/proc/sys/net/ipv6/conf/"+conf+"/disable_ipv6", []byte("1\n"), 0)
			if err != nil && !errors.Is(err, os.ErrNotExist) { // no IPv6 in this kernel: fine
				return fmt.Errorf("disable IPv6: %w", err)
			}
		}
		lo, err := netlink.LinkByName("lo")
		if err == nil {
			err = netlink.LinkSetUp(lo)
		}
		if err != nil {
			return fmt.Errorf("set lo up: %w", err)
		}
		return nil
	})
	if err != nil {
		if h.IsOpen() {
			h.Close()
		}
		return 0, fmt.Errorf("create netns %s: %w", name, err)
	}
	return h, nil
}

// configureHost sets up host h's NIC inside its namespace ns: MAC, ARP
// off, address (and with it the 10.0.0.0/8 route), and a permanent
// FabricMAC neighbour for every other host.
func configureHost(ns netns.NsHandle, h *HostPlan, hosts []HostPlan) error {
	nh, err := netlink.NewHandleAt(ns)
	if err != nil {
		return fmt.Errorf("host %s: netlink: %w", h.Name, err)
	}
	defer nh.Close()
	link, err := nh.LinkByName(h.Iface)
	if err != nil {
		return fmt.Errorf("host %s: find %s: %w", h.Name, h.Iface, err)
	}
	if err := nh.LinkSetHardwareAddr(link, h.MAC); err != nil {
		return fmt.Errorf("host %s: set MAC of %s: %w", h.Name, h.Iface, err)
	}
	if err := nh.LinkSetARPOff(link); err != nil {
		return fmt.Errorf("host %s: ARP off on %s: %w", h.Name, h.Iface, err)
	}
	addr := &netlink.Addr{IPNet: &net.IPNet{IP: h.IP.AsSlice(), Mask: net.CIDRMask(HostPrefixLen, 32)}}
	if err := nh.AddrAdd(link, addr); err != nil {
		return fmt.Errorf("host %s: add address %v: %w", h.Name, addr, err)
	}
	for _, peer := range hosts {
		if peer.IP == h.IP {
			continue
		}
		n := &netlink.Neigh{
			LinkIndex: link.Attrs().Index, Family: unix.AF_INET, State: netlink.NUD_PERMANENT,
			IP: peer.IP.AsSlice(), HardwareAddr: FabricMAC,
		}
		if err := nh.NeighSet(n); err != nil {
			return fmt.Errorf("host %s: neighbour %v: %w", h.Name, peer.IP, err)
		}
	}
	return nil
}
