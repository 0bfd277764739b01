package lab

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/vishvananda/netlink"
	"golang.org/x/sys/unix"

	"graphcc/namespace"
	"graphcc/topo"

	"graphcc/internal/privtest"
)

// requireExec skips t if the program name is not on PATH (privtest).
func requireExec(t *testing.T, name string) { privtest.Program(t, name, "p4lang/behavioral-model") }

// labPlan returns the plan of a Clos for a lab named uniquely for this
// process and tag.
func labPlan(tb testing.TB, tag string, leaves, spines, hostsPerLeaf int) *Plan {
	tb.Helper()
	c := topo.DefaultClos()
	c.Leaves, c.Spines, c.HostsPerLeaf = leaves, spines, hostsPerLeaf
	f, err := topo.Clos(c)
	if err != nil {
		tb.Fatal(err)
	}
	p, err := NewPlan(fmt.Sprintf("t%d%s", os.Getpid()%100000, tag), f)
	if err != nil {
		tb.Fatal(err)
	}
	return p
}

// upLab runs Up with cfg (Dir defaults to a temporary directory), after
// registering a cleanup that takes the lab down and checks nothing is left.
func upLab(t *testing.T, cfg Config) (*Lab, error) {
	t.Helper()
	if cfg.Dir == "" {
		cfg.Dir = t.TempDir()
	}
	lab, dir := cfg.Plan.Lab, cfg.Dir
	t.Cleanup(func() {
		if err := Down(context.Background(), lab, dir); err != nil {
			t.Errorf("cleanup: %v", err)
		}
		assertLabGone(t, lab, dir)
	})
	return Up(t.Context(), cfg)
}

// assertLabGone checks that nothing of lab is left: no namespace, no
// temporary link in the root namespace, no state file.
func assertLabGone(t *testing.T, lab, dir string) {
	t.Helper()
	ns, err := scanNetns(lab)
	if err != nil || len(ns) > 0 {
		t.Errorf("namespaces left: %v (%v)", ns, err)
	}
	links, err := retryDump(netlink.LinkList)
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range links {
		if strings.HasPrefix(l.Attrs().Name, tmpLinkPrefix(lab)) {
			t.Errorf("link %s left in the root namespace", l.Attrs().Name)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, StateFile)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("state file left (%v)", err)
	}
}

func TestLabUpDownNetwork(t *testing.T) {
	requireRoot(t)
	p := labPlan(t, "net", 2, 1, 2)
	l, err := upLab(t, Config{Plan: p, NoSwitches: true})
	if err != nil {
		t.Fatal(err)
	}
	st, err := ReadState(l.Dir())
	if err != nil {
		t.Fatal(err)
	}
	if st.Phase != PhaseUp || len(st.Namespaces) != 3+4 || len(st.Links) != 4+2 || len(st.Hosts) != 4 {
		t.Fatalf("state: phase %s, %d namespaces, %d links, %d hosts", st.Phase, len(st.Namespaces), len(st.Links), len(st.Hosts))
	}
	for _, n := range p.Namespaces() {
		if !NetnsExists(n) {
			t.Errorf("namespace %s missing", n)
		}
		checkNetnsLinks(t, n)
	}
	for _, sp := range p.Switches {
		h := nsHandle(t, sp.Netns)
		for _, pp := range sp.Ports {
			link, err := h.LinkByName(pp.Iface)
			if err != nil {
				t.Errorf("switch %s: %v", sp.Name, err)
				continue
			}
			if link.Type() != "veth" || link.Attrs().Flags&net.FlagUp == 0 || link.Attrs().MTU < FrameBytes {
				t.Errorf("switch %s %s: type %s flags %v mtu %d", sp.Name, pp.Iface, link.Type(), link.Attrs().Flags, link.Attrs().MTU)
			}
		}
	}
	for _, hp := range p.Hosts {
		checkHost(t, p, &hp)
	}
	// every veth end receives what its peer sends
	for _, ls := range st.Links {
		exchangeFrame(t, ls.A, ls.B)
		exchangeFrame(t, ls.B, ls.A)
	}
	// the kernel sends to peers at FabricMAC, with no ARP or IPv6 first
	h0, h1 := p.Hosts[0], p.Hosts[1]
	swNS, swIface := p.Iface(topo.PortID(int(h0.Port) ^ 1))
	checkKernelFrame(t, h0, h1, Endpoint{Netns: swNS, Iface: swIface})

	if err := l.Down(t.Context()); err != nil {
		t.Fatal(err)
	}
	assertLabGone(t, p.Lab, l.Dir())
	if err := l.Down(t.Context()); err != nil {
		t.Errorf("second down: %v", err)
	}
}

func nsHandle(t *testing.T, ns string) *netlink.Handle {
	t.Helper()
	nh, err := OpenNetns(ns)
	if err != nil {
		t.Fatal(err)
	}
	defer nh.Close()
	h, err := netlink.NewHandleAt(nh)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(h.Close)
	return h
}

// checkNetnsLinks checks ns: lo up, and every veth with IPv6 disabled and
// TX checksum offload off.
func checkNetnsLinks(t *testing.T, ns string) {
	t.Helper()
	h := nsHandle(t, ns)
	links, err := retryDump(h.LinkList)
	if err != nil {
		t.Fatal(err)
	}
	for _, link := range links {
		name := link.Attrs().Name
		if name == "lo" {
			if link.Attrs().Flags&net.FlagUp == 0 {
				t.Errorf("%s: lo is down", ns)
			}
			continue
		}
		var v6 []byte
		err := namespace.DoNamed(ns, func() error {
			var err error
			v6, err = os.ReadFile("/proc/sys/net/ipv6/conf/" + name + "/disable_ipv6")
			return err
		})
		if err == nil && string(bytes.TrimSpace(v6)) != "1" {
			t.Errorf("%s %s: disable_ipv6 = %q", ns, name, v6)
		}
		nsh, _ := OpenNetns(ns)
		on, err := TXChecksumOffload(Veth{Name: name, NS: nsh})
		nsh.Close()
		if err != nil || on {
			t.Errorf("%s %s: TX checksum offload on=%v (%v)", ns, name, on, err)
		}
	}
}

// checkHost checks host hp's NIC: MAC, ARP off, address, route and a
// permanent FabricMAC neighbour per peer.
func checkHost(t *testing.T, p *Plan, hp *HostPlan) {
	t.Helper()
	h := nsHandle(t, hp.Netns)
	link, err := h.LinkByName(hp.Iface)
	if err != nil {
		t.Fatal(err)
	}
	a := link.Attrs()
	if !bytes.Equal(a.HardwareAddr, hp.MAC) || a.RawFlags&unix.IFF_NOARP == 0 || a.Flags&net.FlagUp == 0 {
		t.Errorf("host %s: mac %v flags %v, want %v, NOARP, up", hp.Name, a.HardwareAddr, a.Flags, hp.MAC)
	}
	addrs, err := retryDump(func() ([]netlink.Addr, error) { return h.AddrList(link, unix.AF_INET) })
	if err != nil || len(addrs) != 1 || !addrs[0].IP.Equal(hp.IP.AsSlice()) {
		t.Errorf("host %s: addresses %v (%v), want %v", hp.Name, addrs, err, hp.IP)
	} else if ones, _ := addrs[0].Mask.Size(); ones != HostPrefixLen {
		t.Errorf("host %s: prefix /%d", hp.Name, ones)
	}
	routes, err := retryDump(func() ([]netlink.Route, error) { return h.RouteList(link, unix.AF_INET) })
	found := false
	for _, r := range routes {
		if r.Dst != nil && r.Dst.String() == "10.0.0.0/8" && r.LinkIndex == a.Index {
			found = true
		}
	}
	if err != nil || !found {
		t.Errorf("host %s: no route to 10.0.0.0/8 on %s: %v (%v)", hp.Name, hp.Iface, routes, err)
	}
	neighs, err := retryDump(func() ([]netlink.Neigh, error) { return h.NeighList(a.Index, unix.AF_INET) })
	if err != nil {
		t.Fatal(err)
	}
	perm := map[string]bool{}
	for _, n := range neighs {
		if n.State == netlink.NUD_PERMANENT && bytes.Equal(n.HardwareAddr, FabricMAC) {
			perm[n.IP.String()] = true
		}
	}
	for _, peer := range p.Hosts {
		if peer.Name != hp.Name && !perm[peer.IP.String()] {
			t.Errorf("host %s: no permanent FabricMAC neighbour for %v", hp.Name, peer.IP)
		}
	}
}

const testEtherType = 0x88b5 // IEEE 802 local experimental

func htons(v uint16) uint16 { return v<<8 | v>>8 }

// rawSocket opens an AF_PACKET socket for ethertype proto bound to e.
func rawSocket(t *testing.T, e Endpoint, proto uint16) int {
	t.Helper()
	var fd int
	err := namespace.DoNamed(e.Netns, func() error {
		ifi, err := net.InterfaceByName(e.Iface)
		if err != nil {
			return err
		}
		fd, err = unix.Socket(unix.AF_PACKET, unix.SOCK_RAW|unix.SOCK_CLOEXEC, int(htons(proto)))
		if err != nil {
			return err
		}
		if err := unix.Bind(fd, &unix.SockaddrLinklayer{Protocol: htons(proto), Ifindex: ifi.Index}); err != nil {
			unix.Close(fd)
			return err
		}
		return nil
	})
	if err != nil {
		t.Fatalf("raw socket on %s %s: %v", e.Netns, e.Iface, err)
	}
	t.Cleanup(func() { unix.Close(fd) })
	return fd
}

// recvFrame reads frames from fd until match accepts one, giving up after
// a generous liveness bound (not a timing assertion).
func recvFrame(t *testing.T, fd int, match func([]byte) bool) []byte {
	t.Helper()
	buf := make([]byte, 2048)
	deadline := time.Now().Add(5 * time.Second)
	for time.Now().Before(deadline) {
		n, err := unix.Poll([]unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}, 100)
		if err != nil && !errors.Is(err, unix.EINTR) {
			t.Fatal(err)
		}
		if n == 0 {
			continue
		}
		m, _, err := unix.Recvfrom(fd, buf, 0)
		if err != nil {
			t.Fatal(err)
		}
		if match(buf[:m]) {
			return bytes.Clone(buf[:m])
		}
	}
	return nil
}

// exchangeFrame sends a raw frame out of from and expects it at to.
func exchangeFrame(t *testing.T, from, to Endpoint) {
	t.Helper()
	rx := rawSocket(t, to, testEtherType)
	tx := rawSocket(t, from, testEtherType)
	tag := fmt.Sprintf("%s/%s->%s/%s", from.Netns, from.Iface, to.Netns, to.Iface)
	frame := make([]byte, 14, 64)
	copy(frame, FabricMAC)
	copy(frame[6:], net.HardwareAddr{0x02, 0, 0, 0, 0xee, 0xee})
	binary.BigEndian.PutUint16(frame[12:], testEtherType)
	frame = append(frame, tag...)
	if _, err := unix.Write(tx, frame); err != nil {
		t.Fatalf("%s: send: %v", tag, err)
	}
	if recvFrame(t, rx, func(b []byte) bool { return bytes.Contains(b, []byte(tag)) }) == nil {
		t.Errorf("%s: frame not received", tag)
	}
}

// checkKernelFrame sends a UDP datagram from host a to host b through the
// kernel and checks the frame leaving a (seen at the switch end sw) goes
// to FabricMAC from a's MAC, with no ARP or IPv6 frame before it.
func checkKernelFrame(t *testing.T, a, b HostPlan, sw Endpoint) {
	t.Helper()
	rx := rawSocket(t, sw, unix.ETH_P_ALL)
	err := namespace.DoNamed(a.Netns, func() error {
		fd, err := unix.Socket(unix.AF_INET, unix.SOCK_DGRAM|unix.SOCK_CLOEXEC, 0)
		if err != nil {
			return err
		}
		defer unix.Close(fd)
		return unix.Sendto(fd, []byte("graphcc"), 0, &unix.SockaddrInet4{Port: 9, Addr: b.IP.As4()})
	})
	if err != nil {
		t.Fatal(err)
	}
	var others []uint16
	got := recvFrame(t, rx, func(f []byte) bool {
		if len(f) < 14 {
			return false
		}
		typ := binary.BigEndian.Uint16(f[12:])
		if typ == unix.ETH_P_IP && len(f) >= 14+20+8 && f[14+9] == unix.IPPROTO_UDP &&
			binary.BigEndian.Uint16(f[14+20+2:]) == 9 {
			return true
		}
		others = append(others, typ)
		return false
	})
	if got == nil {
		t.Fatal("UDP frame from the host's kernel not seen at the switch port")
	}
	if !bytes.Equal(got[:6], FabricMAC) || !bytes.Equal(got[6:12], a.MAC) {
		t.Errorf("frame %v -> %v, want %v -> %v", net.HardwareAddr(got[6:12]), net.HardwareAddr(got[:6]), a.MAC, FabricMAC)
	}
	for _, typ := range others {
		if typ == unix.ETH_P_ARP || typ == unix.ETH_P_IPV6 {
			t.Errorf("frame of ethertype %#04x on the fabric", typ)
		}
	}
}

func TestLabUpFailureLeavesNothing(t *testing.T) {
	requireRoot(t)
	rec := fakeBMv2(t)
	for _, tc := range []struct {
		step       string
		noSwitches bool
	}{
		{"netns t-leaf1", true}, // a node name: replaced below
		{"link leaf0-spine0", true},
		{"host h3", true},
		{"switch leaf1", false},
		{"queues spine0", false},
	} {
		t.Run(strings.Fields(tc.step)[0], func(t *testing.T) {
			p := labPlan(t, "f"+strings.Fields(tc.step)[0][:2], 2, 1, 2)
			stepName := tc.step
			if strings.HasPrefix(stepName, "netns ") {
				stepName = "netns " + p.Lab + "-leaf1"
			}
			injected := errors.New("injected failure")
			seen := false
			cfg := Config{Plan: p, NoSwitches: tc.noSwitches, hook: func(s string) error {
				if s == stepName {
					seen = true
					return injected
				}
				return nil
			}}
			cfg.Dir = t.TempDir()
			_, err := upLab(t, cfg)
			if !errors.Is(err, injected) || !seen {
				t.Fatalf("up: %v (step reached: %v)", err, seen)
			}
			assertLabGone(t, p.Lab, cfg.Dir)
			assertFakesStopped(t, rec)
		})
	}
}

// assertFakesStopped checks every fake switch that wrote a record is gone,
// and removes the records.
func assertFakesStopped(t *testing.T, rec string) {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join(rec, "switch-*.json"))
	for _, f := range files {
		var id uint64
		fmt.Sscanf(filepath.Base(f), "switch-%d.json", &id)
		r := readFakeRecord(t, rec, id)
		if st, _, err := procStat(r.PID); err == nil && st != 'Z' {
			t.Errorf("fake switch %d (pid %d) still running", id, r.PID)
		}
		os.Remove(f)
	}
}

func TestLabRefusesExisting(t *testing.T) {
	requireRoot(t)
	p := labPlan(t, "live", 1, 1, 1)
	l, err := upLab(t, Config{Plan: p, NoSwitches: true})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Up(t.Context(), Config{Plan: p, Dir: l.Dir(), NoSwitches: true}); err == nil {
		t.Fatal("a second up of a live lab succeeded")
	}
	for _, n := range p.Namespaces() {
		if !NetnsExists(n) {
			t.Errorf("the refused up removed %s", n)
		}
	}
	// a namespace left by a crash, with no state file, also blocks up
	q := labPlan(t, "left", 1, 1, 1)
	dir := t.TempDir()
	t.Cleanup(func() {
		if err := Down(context.Background(), q.Lab, dir); err != nil {
			t.Error(err)
		}
	})
	h, err := namespace.Create(q.Lab + "-h0")
	if err != nil {
		t.Fatal(err)
	}
	h.Close()
	if _, err := Up(t.Context(), Config{Plan: q, Dir: dir, NoSwitches: true}); err == nil || !strings.Contains(err.Error(), "run down first") {
		t.Fatalf("up over a leftover namespace: %v", err)
	}
	if !NetnsExists(q.Lab + "-h0") {
		t.Error("the refused up removed the leftover namespace")
	}
}

func TestLabFakeSwitches(t *testing.T) {
	requireRoot(t)
	rec := fakeBMv2(t)
	p := labPlan(t, "sw", 2, 1, 2)
	maxKMax := func(rate int64) int64 { return rate / 10_000 } // 2.5 MB at 25 Gbps: above Alibaba's kmax
	l, err := upLab(t, Config{Plan: p, Scale: 1000, MaxKMax: maxKMax})
	if err != nil {
		t.Fatal(err)
	}
	st := l.State()
	for i, sp := range p.Switches {
		r := readFakeRecord(t, rec, sp.DeviceID)
		ss := st.Switches[i]
		if ss.PID != r.PID || !processAlive(ss.PID, ss.StartTime) {
			t.Errorf("switch %s: state pid %d start %d, fake pid %d", sp.Name, ss.PID, ss.StartTime, r.PID)
		}
		var s unix.Stat_t
		if err := unix.Stat(filepath.Join(NetnsDir, sp.Netns), &s); err != nil || s.Ino != r.NetnsIno {
			t.Errorf("switch %s runs in netns inode %d, want %d (%v)", sp.Name, r.NetnsIno, s.Ino, err)
		}
		var want []string
		var cmds strings.Builder
		for _, pp := range sp.Ports {
			want = append(want, fmt.Sprintf("%d@%s", pp.Num, pp.Iface))
			rate := p.Fabric.Ports[pp.Port].Rate
			fmt.Fprintf(&cmds, "set_queue_rate %d %d\nset_queue_depth %d %d\nset_queue_rate %d %d 1\n",
				QueueRatePPS(rate, 1000), pp.Num, QueueDepth(rate, maxKMax(rate)), pp.Num, ControlRatePPS(rate, 1000), pp.Num)
		}
		if fmt.Sprint(r.Ifaces) != fmt.Sprint(want) || r.Thrift != ThriftPort || r.GRPC != GRPCAddr || !r.NoP4 {
			t.Errorf("switch %s command line: %+v", sp.Name, r)
		}
		cli, err := os.ReadFile(filepath.Join(rec, fmt.Sprintf("cli-%d.txt", s.Ino)))
		if err != nil || string(cli) != cmds.String() {
			t.Errorf("switch %s CLI input %q (%v), want %q", sp.Name, cli, err, cmds.String())
		}
		conn, err := l.Dialer(i)(t.Context(), GRPCAddr)
		if err != nil {
			t.Errorf("switch %s: dial gRPC in its namespace: %v", sp.Name, err)
		} else {
			conn.Close()
		}
	}
	if err := l.CheckSwitches(); err != nil {
		t.Error(err)
	}
	// another process's view: the state file
	other, err := Load(p.Lab, l.Dir())
	if err != nil {
		t.Fatal(err)
	}
	if err := other.Check(p); err != nil {
		t.Error(err)
	}
	s := other.Status()
	for _, sw := range s.Switches {
		if !sw.Alive {
			t.Errorf("status: switch %s not alive", sw.Name)
		}
	}
	var out bytes.Buffer
	if err := s.WriteText(&out); err != nil || !strings.Contains(out.String(), "spine0") {
		t.Errorf("status text %q (%v)", out.String(), err)
	}
	if err := other.SetQueues(t.Context()); err != nil {
		t.Errorf("set queues again: %v", err)
	}
	if err := other.Down(t.Context()); err != nil {
		t.Fatal(err)
	}
	for _, ss := range st.Switches {
		if processAlive(ss.PID, ss.StartTime) {
			t.Errorf("switch %s still running after down", ss.Name)
		}
	}
	if err := l.CheckSwitches(); err == nil {
		t.Error("CheckSwitches after down found every switch running")
	}
}

func TestLabSwitchFailures(t *testing.T) {
	requireRoot(t)
	rec := fakeBMv2(t)
	t.Run("exits at start", func(t *testing.T) {
		t.Setenv("GRAPHCC_FAKE_BMV2_FAIL", "2")
		p := labPlan(t, "ex", 1, 1, 1)
		_, err := upLab(t, Config{Plan: p})
		if err == nil || !strings.Contains(err.Error(), "switch "+p.Switches[1].Name) ||
			!strings.Contains(err.Error(), "failing as asked") {
			t.Fatalf("up: %v", err)
		}
		assertFakesStopped(t, rec)
	})
	t.Run("no Thrift", func(t *testing.T) {
		t.Setenv("GRAPHCC_FAKE_BMV2_NO_THRIFT", "1")
		p := labPlan(t, "nt", 1, 1, 1)
		start := time.Now()
		_, err := upLab(t, Config{Plan: p})
		if err == nil || !strings.Contains(err.Error(), "serves P4Runtime but not Thrift") || !strings.Contains(err.Error(), "--with-thrift") {
			t.Fatalf("up: %v", err)
		}
		if d := time.Since(start); d > DefaultStartTimeout {
			t.Errorf("up took %v to find the missing Thrift port", d)
		}
		assertFakesStopped(t, rec)
	})
	t.Run("CLI error", func(t *testing.T) {
		t.Setenv("GRAPHCC_FAKE_CLI_ERROR", "1")
		p := labPlan(t, "cli", 1, 1, 1)
		_, err := upLab(t, Config{Plan: p})
		if err == nil || !strings.Contains(err.Error(), "Invalid egress port") {
			t.Fatalf("up: %v", err)
		}
		assertFakesStopped(t, rec)
	})
	t.Run("ignores SIGTERM", func(t *testing.T) {
		t.Setenv("GRAPHCC_FAKE_BMV2_IGNORE_TERM", "1")
		p := labPlan(t, "term", 1, 1, 1)
		l, err := upLab(t, Config{Plan: p, StopGrace: 100 * time.Millisecond})
		if err != nil {
			t.Fatal(err)
		}
		if err := l.Down(t.Context()); err != nil {
			t.Fatal(err)
		}
		assertFakesStopped(t, rec)
		if n := len(l.children); n != 0 { // Down joins the goroutines that wait for them
			t.Errorf("%d switch processes not reaped after Down", n)
		}
	})
}

func TestLabDownAfterCrash(t *testing.T) {
	requireRoot(t)
	rec := fakeBMv2(t)
	p := labPlan(t, "crash", 2, 1, 1)
	l, err := upLab(t, Config{Plan: p})
	if err != nil {
		t.Fatal(err)
	}
	st := l.State()
	// one switch died, and up crashed after making a namespace and a link
	// it never recorded, and after starting a switch it never recorded
	if err := syscall.Kill(st.Switches[0].PID, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	h, err := createLabNetns(p.Lab + "-h99")
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	tmp := tmpLinkName(p.Lab, 77)
	if err := netlink.LinkAdd(&netlink.Veth{LinkAttrs: netlink.LinkAttrs{Name: tmp + "a"}, PeerName: tmp + "b"}); err != nil {
		t.Fatal(err)
	}
	stray, err := startInNetns(h, st.SwitchBinary, []string{"--device-id", "99", "--thrift-port", "9090", "--", "--grpc-server-addr", GRPCAddr}, filepath.Join(l.Dir(), "stray.log"))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	if err := waitListening(ctx, h, GRPCAddr, stray); err != nil {
		t.Fatal(err)
	}
	if err := Down(t.Context(), p.Lab, l.Dir()); err != nil {
		t.Fatal(err)
	}
	assertLabGone(t, p.Lab, l.Dir())
	select {
	case <-stray.done:
	case <-time.After(10 * time.Second):
		t.Error("unrecorded switch process still running after down")
	}
	assertFakesStopped(t, rec)
	if err := Down(t.Context(), p.Lab, l.Dir()); err != nil {
		t.Errorf("second down: %v", err)
	}
}

// TestLabDownCorruptState takes down a lab whose state file is garbage:
// the scan finds its namespaces and links, and its switch processes (by
// the default switch binary on PATH).
func TestLabDownCorruptState(t *testing.T) {
	requireRoot(t)
	for _, tc := range []struct {
		name       string
		noSwitches bool
	}{
		{"network only", true},
		{"with switches", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rec := ""
			if !tc.noSwitches {
				rec = fakeBMv2(t)
			}
			p := labPlan(t, "bad", 2, 1, 1)
			l, err := upLab(t, Config{Plan: p, NoSwitches: tc.noSwitches, StopGrace: 100 * time.Millisecond})
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(l.Dir(), StateFile), []byte("{garbage"), 0o644); err != nil {
				t.Fatal(err)
			}
			if err := Down(t.Context(), p.Lab, l.Dir()); err == nil {
				t.Error("down with a corrupt state file reported no error")
			}
			assertLabGone(t, p.Lab, l.Dir()) // the scan found everything
			if rec != "" {
				files, _ := filepath.Glob(filepath.Join(rec, "switch-*.json"))
				if len(files) != len(p.Switches) {
					t.Fatalf("%d fake switch records, want %d", len(files), len(p.Switches))
				}
				assertFakesStopped(t, rec)
			}
			if err := Down(t.Context(), p.Lab, l.Dir()); err != nil {
				t.Errorf("second down: %v", err)
			}
		})
	}
}

func TestLabDownMissing(t *testing.T) {
	requireRoot(t)
	lab := fmt.Sprintf("t%dnone", os.Getpid()%100000)
	if err := Down(t.Context(), lab, filepath.Join(t.TempDir(), "never")); err != nil {
		t.Errorf("down of a lab that never existed: %v", err)
	}
}

// TestLabRealBMv2 starts a one-switch lab with the real simple_switch_grpc
// and checks its gRPC port accepts a connection inside its namespace and
// every switch thread is at normal scheduling; then a two-switch lab with
// Realtime 10, whose every switch thread must be at SCHED_FIFO 10.
func TestLabRealBMv2(t *testing.T) {
	requireRoot(t)
	requireExec(t, DefaultSwitchBinary)
	privtest.Runs(t, DefaultCLIBinary, "p4lang/behavioral-model", "--help")
	f, err := topo.New([]topo.Node{{ID: 0, Name: "h0"}, {ID: 1, Name: "h1"}, {ID: 2, Name: "leaf0", Switch: true}},
		[]topo.Link{{ID: 0, A: 0, B: 2, Rate: 25 * topo.Gbps, Delay: topo.Microsecond}, {ID: 1, A: 1, B: 2, Rate: 25 * topo.Gbps, Delay: topo.Microsecond}}, 0)
	if err != nil {
		t.Fatal(err)
	}
	p, err := NewPlan(fmt.Sprintf("t%dbm", os.Getpid()%100000), f)
	if err != nil {
		t.Fatal(err)
	}
	l, err := upLab(t, Config{Plan: p})
	if err != nil {
		t.Fatal(err)
	}
	conn, err := l.Dialer(0)(t.Context(), GRPCAddr)
	if err != nil {
		t.Fatal(err)
	}
	conn.Close()
	checkSwitchThreads(t, l, unix.SCHED_NORMAL, 0)

	rt, err := upLab(t, Config{Plan: labPlan(t, "rt", 1, 1, 1), Realtime: 10})
	if err != nil {
		t.Fatal(err)
	}
	checkSwitchThreads(t, rt, unix.SCHED_FIFO, 10)
	if st, err := ReadState(rt.Dir()); err != nil || st.Realtime != 10 {
		t.Errorf("state file: realtime %+v, %v; want 10", st, err)
	}
	if s := rt.Status(); s.Sched != "fifo:10" || s.SchedErr != nil {
		t.Errorf("status: %q (%v), want fifo:10", s.Sched, s.SchedErr)
	}
	if n, err := rt.ApplyRealtime(); err != nil || n != 0 {
		t.Errorf("ApplyRealtime again: %d threads changed, %v; want 0", n, err)
	}
}

// checkSwitchThreads fails t unless every thread of every switch of l has
// the scheduling policy and priority given.
func checkSwitchThreads(t *testing.T, l *Lab, policy, prio uint32) {
	t.Helper()
	for _, ss := range l.State().Switches {
		threads, err := ProcessSched(ss.PID)
		if err != nil {
			t.Fatal(err)
		}
		if len(threads) < 2 {
			t.Errorf("switch %s: %d threads; BMv2 runs several", ss.Name, len(threads))
		}
		for _, th := range threads {
			if th.Policy != policy || th.Priority != prio {
				t.Errorf("switch %s thread %d: policy %d priority %d, want %d %d", ss.Name, th.TID, th.Policy, th.Priority, policy, prio)
			}
		}
	}
}

func TestRetryDump(t *testing.T) {
	other := errors.New("permission denied")
	for _, tc := range []struct {
		name      string
		answers   []error // one per call; nil: a complete dump
		wantCalls int
		wantErr   error
	}{
		{"complete", []error{nil}, 1, nil},
		{"interrupted twice", []error{netlink.ErrDumpInterrupted, netlink.ErrDumpInterrupted, nil}, 3, nil},
		{"other error", []error{other, nil}, 1, other},
		{"always interrupted", slices.Repeat([]error{netlink.ErrDumpInterrupted}, dumpRetries+5), dumpRetries + 1, netlink.ErrDumpInterrupted},
	} {
		calls := 0
		v, err := retryDump(func() ([]int, error) {
			err := tc.answers[calls]
			calls++
			return []int{calls}, err
		})
		if calls != tc.wantCalls || !errors.Is(err, tc.wantErr) || (err == nil) != (tc.wantErr == nil) || len(v) != 1 || v[0] != calls {
			t.Errorf("%s: %d calls, %v, %v; want %d calls, %v, the last answer", tc.name, calls, v, err, tc.wantCalls, tc.wantErr)
		}
	}
}
