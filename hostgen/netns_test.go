package hostgen

import (
	"context"
	"encoding/binary"
	"errors"
	"net"
	"net/netip"
	"sync/atomic"
	"testing"
	"time"

	"github.com/vishvananda/netlink"
	"github.com/vishvananda/netns"

	"graphcc/topo"
	"graphcc/trace"

	"graphcc/internal/privtest"
	"graphcc/internal/testnetns"
)

// Root-only tests: hosts in network namespaces on veths, through a Linux
// bridge or a forwarder that marks CE. They build their namespaces with
// netlink here rather than with package controller/lab, which imports
// hostgen (a test of package hostgen importing it would be a cycle).

// requireRoot skips a test that needs root (privtest.Root).
func requireRoot(t *testing.T) { privtest.Root(t) }

// testNetns creates a fresh named namespace for t (testnetns.New).
func testNetns(t *testing.T, tag string) (string, netns.NsHandle) {
	t.Helper()
	return testnetns.New(t, "gcch", tag)
}

// testVeth joins interface a in namespace na and b in nb by a veth pair,
// both up.
func testVeth(t *testing.T, na netns.NsHandle, a string, nb netns.NsHandle, b string) {
	t.Helper()
	v := &netlink.Veth{LinkAttrs: netlink.LinkAttrs{Name: a, Namespace: netlink.NsFd(na)}, PeerName: b, PeerNamespace: netlink.NsFd(nb)}
	if err := netlink.LinkAdd(v); err != nil {
		t.Fatalf("create veth %s-%s: %v", a, b, err)
	}
	for _, end := range []struct {
		ns   netns.NsHandle
		name string
	}{{na, a}, {nb, b}} {
		linkUp(t, end.ns, end.name, nil)
	}
}

// linkUp sets link name of namespace ns up, enslaved to master if not nil.
func linkUp(t *testing.T, ns netns.NsHandle, name string, master netlink.Link) {
	t.Helper()
	h, err := netlink.NewHandleAt(ns)
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	l, err := h.LinkByName(name)
	if err != nil {
		t.Fatalf("find %s: %v", name, err)
	}
	if master != nil {
		if err := h.LinkSetMaster(l, master); err != nil {
			t.Fatalf("enslave %s: %v", name, err)
		}
	}
	if err := h.LinkSetUp(l); err != nil {
		t.Fatalf("set %s up: %v", name, err)
	}
}

// testBridge creates bridge br0 in ns with ports, all up.
func testBridge(t *testing.T, ns netns.NsHandle, ports ...string) {
	t.Helper()
	h, err := netlink.NewHandleAt(ns)
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	br := &netlink.Bridge{LinkAttrs: netlink.LinkAttrs{Name: "br0"}}
	if err := h.LinkAdd(br); err != nil {
		t.Fatalf("create bridge: %v", err)
	}
	for _, p := range ports {
		linkUp(t, ns, p, br)
	}
	linkUp(t, ns, "br0", nil)
}

var fabricMAC = net.HardwareAddr{0x02, 0xfa, 0xb0, 0x00, 0x00, 0x01}

func TestOpenErrors(t *testing.T) {
	if _, err := Open("", "no-such-if0"); err == nil {
		t.Error("opened a missing interface")
	}
	if _, err := Open("gcch-no-such-netns", "eth0"); err == nil {
		t.Error("opened in a missing namespace")
	}
}

// TestConnOnVeth checks the packet socket on a veth: a frame addressed to
// no host's MAC is read, and a socket does not read its own frames.
func TestConnOnVeth(t *testing.T) {
	requireRoot(t)
	na, ha := testNetns(t, "ca")
	nb, hb := testNetns(t, "cb")
	testVeth(t, ha, "eth0", hb, "eth0")
	a, err := Open(na, "eth0")
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	b, err := Open(nb, "eth0")
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	if len(a.HardwareAddr()) != 6 || a.Index() <= 0 {
		t.Fatalf("interface %v index %d", a.HardwareAddr(), a.Index())
	}
	enc, dec := NewEncoder(), NewDecoder()
	send := func(c *Conn, qp uint32) {
		f := dataFrame(qp, 0, 1000)
		f.DstMAC = [6]byte(fabricMAC)
		fr, err := enc.Encode(&f)
		if err != nil {
			t.Fatal(err)
		}
		if err := c.WriteFrame(fr); err != nil {
			t.Fatal(err)
		}
	}
	// A fresh veth may drop the first frames while its carrier comes up,
	// and the kernel sends its own (IPv6 neighbour discovery) frames: send
	// until the peer reads the frame, skipping anything else.
	buf := make([]byte, 2048)
	var got Frame
	for _, c := range []struct {
		from, to *Conn
		qp       uint32
	}{{b, a, 2}, {a, b, 1}} {
		deadline := time.Now().Add(5 * time.Second)
		found := false
		for !found && time.Now().Before(deadline) {
			send(c.from, c.qp)
			c.to.SetReadDeadline(time.Now().Add(100 * time.Millisecond))
			for !found {
				n, err := c.to.ReadFrame(buf)
				if err != nil {
					break // deadline: send again
				}
				if dec.Decode(buf[:n], &got) != nil {
					continue // not RoCEv2
				}
				if got.QP == c.qp^3 { // qp 1 <-> 2: the reader's own frames
					t.Fatalf("read back its own frame (qp %d)", got.QP)
				}
				if got.QP != c.qp {
					continue
				}
				if got.DstMAC != [6]byte(fabricMAC) {
					t.Errorf("read qp %d to %x, want %x", got.QP, got.DstMAC, fabricMAC)
				}
				found = true
			}
		}
		if !found {
			t.Fatalf("qp %d never arrived", c.qp)
		}
	}
}

// hostPair returns hosts 0 and 1 of f in namespaces na and nb at 10.0.0.1
// and 10.0.0.2.
func hostPair(t *testing.T, f *topo.Fabric, na, nb string) []*Host {
	t.Helper()
	ips := map[topo.NodeID]netip.Addr{0: netip.MustParseAddr("10.0.0.1"), 1: netip.MustParseAddr("10.0.0.2")}
	var hosts []*Host
	for i, ns := range []string{na, nb} {
		h, err := NewHost(HostConfig{Node: topo.NodeID(i), Fabric: f, Netns: ns, Iface: "eth0",
			FabricMAC: fabricMAC, IP: ips[topo.NodeID(i)], Peers: ips})
		if err != nil {
			t.Fatal(err)
		}
		hosts = append(hosts, h)
	}
	return hosts
}

// runHosts opens hosts' sockets, starts a clock of the given scale and
// runs the hosts until all are done; it returns the real time that took.
func runHosts(t *testing.T, hosts []*Host, flows []Flow, scale float64) time.Duration {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	for _, h := range hosts {
		if err := h.Open(); err != nil {
			t.Fatal(err)
		}
	}
	clock, err := NewClock(time.Now(), scale) // every socket is open
	if err != nil {
		t.Fatal(err)
	}
	errc := make(chan error, len(hosts))
	t0 := time.Now()
	for _, h := range hosts {
		go func() { errc <- h.Run(ctx, flows, clock) }()
	}
	var took time.Duration
	for i, h := range hosts {
		select {
		case <-h.Done():
		case err := <-errc:
			t.Fatalf("a host stopped: %v", err)
		case <-time.After(5 * time.Minute): // a hang guard, not a measurement
			t.Fatalf("host %d not done: %+v", i, h.Stats())
		}
		took = time.Since(t0)
	}
	cancel()
	for range hosts {
		if err := <-errc; err != nil {
			t.Error(err)
		}
	}
	return took
}

// bridgedPair makes host namespaces <tag>a and <tag>b, each with an eth0
// on a Linux bridge in a third, <tag>br, and returns their names.
func bridgedPair(t *testing.T, tag string) (string, string) {
	t.Helper()
	na, ha := testNetns(t, tag+"a")
	nb, hb := testNetns(t, tag+"b")
	_, hbr := testNetns(t, tag+"br")
	testVeth(t, ha, "eth0", hbr, "pa")
	testVeth(t, hb, "eth0", hbr, "pb")
	testBridge(t, hbr, "pa", "pb")
	return na, nb
}

// TestHostsThroughBridge runs flows of 1 B to 3 MB both ways between two
// host namespaces joined by a Linux bridge in a third, at scale 100 (25 Gbps
// is 250 Mbps), and checks byte-exact delivery and the FCT records.
func TestHostsThroughBridge(t *testing.T) {
	requireRoot(t)
	na, nb := bridgedPair(t, "")

	f := pairFabric(t)
	trace := []trace.Flow{
		{Src: 0, Dst: 1, Size: 1000, Start: 0, DPort: 100},
		{Src: 1, Dst: 0, Size: 1, Start: 0, DPort: 100},
		{Src: 0, Dst: 1, Size: 10_000, Start: 20 * us, DPort: 100},
		{Src: 1, Dst: 0, Size: 50_000, Start: 20 * us, DPort: 200},
		{Src: 0, Dst: 1, Size: 100_000, Start: 50 * us, DPort: 100},
		{Src: 0, Dst: 1, Size: 1_000_000, Start: 100 * us, DPort: 100},
		{Src: 1, Dst: 0, Size: 2_000_000, Start: 100 * us, DPort: 100},
		{Src: 0, Dst: 1, Size: 3_000_000, Start: 200 * us, DPort: 100},
	}
	flows, err := Schedule(f, trace, 0)
	if err != nil {
		t.Fatal(err)
	}
	const scale = 100
	hosts := hostPair(t, f, na, nb)
	took := runHosts(t, hosts, flows, scale)
	checkHosts(t, flows, hosts)
	var bytes int64
	for _, fl := range trace {
		bytes += fl.Size
	}
	t.Logf("scale %d: %d flows, %d B in %v real: %.1f Mbps real, %.2f Gbps of fabric time",
		scale, len(flows), bytes, took, float64(bytes)*8/took.Seconds()/1e6, float64(bytes)*8/took.Seconds()*scale/1e9)
}

// forwarder copies frames between two interfaces of one namespace, setting
// CE on ECN-capable IPv4 frames while mark is set (with the IPv4 checksum
// fixed), as a marking switch would.
type forwarder struct {
	mark   atomic.Bool
	marked atomic.Int64
}

func (fw *forwarder) run(ctx context.Context, t *testing.T, ns, a, b string) {
	t.Helper()
	ca, err := Open(ns, a)
	if err != nil {
		t.Fatal(err)
	}
	cb, err := Open(ns, b)
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{}, 2)
	copyFrames := func(from, to *Conn) {
		defer func() { done <- struct{}{} }()
		buf := make([]byte, 2048)
		for {
			n, err := from.ReadFrame(buf)
			if err != nil {
				return // closed
			}
			fr := buf[:n]
			if fw.mark.Load() && markCE(fr) {
				fw.marked.Add(1)
			}
			if err := to.WriteFrame(fr); err != nil && !errors.Is(err, net.ErrClosed) {
				t.Logf("forwarder: %v", err) // a drop, as a switch's
			}
		}
	}
	go copyFrames(ca, cb)
	go copyFrames(cb, ca)
	t.Cleanup(func() {
		ca.Close()
		cb.Close()
		<-done
		<-done
	})
}

// markCE sets CE on an ECN-capable IPv4 frame and fixes its header
// checksum; it reports whether it did.
func markCE(fr []byte) bool {
	if len(fr) < 34 || binary.BigEndian.Uint16(fr[12:14]) != 0x0800 {
		return false
	}
	ip := fr[14:]
	ihl := int(ip[0]&0x0f) * 4
	if ihl < 20 || len(ip) < ihl || ip[1]&3 == 0 || ip[1]&3 == 3 {
		return false
	}
	ip[1] |= 3
	ip[10], ip[11] = 0, 0
	var sum uint32
	for i := 0; i < ihl; i += 2 {
		sum += uint32(binary.BigEndian.Uint16(ip[i:]))
	}
	for sum > 0xffff {
		sum = sum&0xffff + sum>>16
	}
	binary.BigEndian.PutUint16(ip[10:], ^uint16(sum))
	return true
}

// TestDCQCNSlowsDown runs a 1 MB flow through a forwarder namespace twice:
// unmarked, it sees no CNP and keeps line rate; with every data frame marked
// CE, its receiver sends CNPs, its DCQCN rate falls far below line rate and
// it takes longer.
func TestDCQCNSlowsDown(t *testing.T) {
	requireRoot(t)
	na, ha := testNetns(t, "da")
	nb, hb := testNetns(t, "db")
	nm, hm := testNetns(t, "dm")
	testVeth(t, ha, "eth0", hm, "ma")
	testVeth(t, hb, "eth0", hm, "mb")
	var fw forwarder
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	fw.run(ctx, t, nm, "ma", "mb")

	f := pairFabric(t)
	const size = 1_000_000
	const scale = 100
	var fct [2]int64
	for i, mark := range []bool{false, true} {
		fw.mark.Store(mark)
		// distinct queue pairs per run, so no late frame of one run counts in the other
		flows := []Flow{{Flow: trace.Flow{Src: 0, Dst: 1, Size: size, DPort: 100}, QP: uint32(100 * (i + 1)), SPort: 10000}}
		hosts := hostPair(t, f, na, nb)
		runHosts(t, hosts, flows, scale)
		checkHosts(t, flows, hosts)
		sent := hosts[0].SentFlows()[0]
		recv := hosts[1].ReceivedFlows()[0]
		fct[i] = hosts[0].FCTs()[0].FCT
		t.Logf("marking %v: FCT %.1f µs, min rate %.2f Gbps, CE %d, CNPs sent %d received %d",
			mark, float64(fct[i])/1e6, float64(sent.MinRate)/1e9, recv.CE, recv.CNPs, sent.CNPs)
		line := hosts[0].Config().LineRate
		if !mark {
			if recv.CE != 0 || sent.CNPs != 0 || sent.MinRate != line {
				t.Errorf("unmarked: CE %d, CNPs %d, min rate %d", recv.CE, sent.CNPs, sent.MinRate)
			}
			continue
		}
		if recv.CE == 0 || recv.CNPs == 0 || sent.CNPs == 0 || sent.MinRate > line/4 {
			t.Errorf("marked: CE %d, CNPs sent %d received %d, min rate %d", recv.CE, recv.CNPs, sent.CNPs, sent.MinRate)
		}
		if recv.CNPs != recv.CE { // no CNP interval by default, as in the simulator
			t.Errorf("marked: %d CE-marked segments answered by %d CNPs", recv.CE, recv.CNPs)
		}
	}
	if fct[1] <= fct[0] {
		t.Errorf("marked flow took %d ps, unmarked %d", fct[1], fct[0])
	}
}

// TestPropagationDelayEmulated runs a 1 KB flow across a fabric whose links
// have 100 µs of delay (a 400 µs propagation round trip, 40 ms real at scale
// 100), through a bridge that adds almost none: with the emulation its FCT
// is at least that round trip, without it far less.
func TestPropagationDelayEmulated(t *testing.T) {
	requireRoot(t)
	na, nb := bridgedPair(t, "p")

	f, err := topo.Clos(topo.ClosConfig{Leaves: 1, Spines: 1, HostsPerLeaf: 2,
		HostRate: 25 * topo.Gbps, FabricRate: 100 * topo.Gbps, LinkDelay: 100 * us})
	if err != nil {
		t.Fatal(err)
	}
	prop := f.PathDelay(0, 1) + f.PathDelay(1, 0)
	if prop != 400*us {
		t.Fatalf("propagation round trip %d ps, want 400 µs", prop)
	}
	const scale = 100
	for i, off := range []bool{false, true} {
		flows := []Flow{{Flow: trace.Flow{Src: 0, Dst: 1, Size: 1000, DPort: 100}, QP: uint32(300 + i), SPort: 10000}}
		hosts := hostPair(t, f, na, nb)
		for _, h := range hosts {
			h.cfg.NoPropagationDelay = off
		}
		runHosts(t, hosts, flows, scale)
		checkHosts(t, flows, hosts)
		fct := hosts[0].FCTs()[0].FCT
		t.Logf("emulation off %v: FCT %.1f µs", off, float64(fct)/1e6)
		if !off && fct < prop {
			t.Errorf("emulated: FCT %d ps, below the propagation round trip %d", fct, prop)
		}
		if off && fct >= prop {
			t.Errorf("not emulated: FCT %d ps, at least the propagation round trip %d", fct, prop)
		}
	}
}
