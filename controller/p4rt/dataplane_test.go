package p4rt

import (
	"context"
	"fmt"
	"net"
	"net/netip"
	"os"
	"testing"
	"time"

	"github.com/google/gopacket"
	"github.com/google/gopacket/layers"
	p4v1 "github.com/p4lang/p4runtime/go/p4/v1"
	"github.com/vishvananda/netlink"
	"github.com/vishvananda/netns"
	"golang.org/x/sys/unix"

	"graphcc/control"
	"graphcc/controller/lab"
	"graphcc/hostgen"
	"graphcc/internal/privtest"
	"graphcc/internal/testnetns"
	"graphcc/namespace"
	"graphcc/p4src"
)

// requireRoot skips a test that needs root (privtest.Root).
func requireRoot(tb testing.TB) { privtest.Root(tb) }

// testNetns creates a fresh named namespace for t (testnetns.New).
func testNetns(tb testing.TB, tag string) (string, netns.NsHandle) {
	tb.Helper()
	return testnetns.New(tb, "gcct", tag)
}

// switchNetns returns a fresh namespace (testNetns) for BMv2 switches
// cabled by veths: no IPv6 on new links (the kernel's own frames would
// count too), and the loopback up (the switches serve P4Runtime on it).
func switchNetns(t testing.TB, tag string) netns.NsHandle {
	t.Helper()
	_, ns := testNetns(t, tag)
	if err := namespace.Do(ns, func() error {
		return os.WriteFile("/proc/sys/net/ipv6/conf/default/disable_ipv6", []byte("1"), 0)
	}); err != nil {
		t.Fatal(err)
	}
	h, err := netlink.NewHandleAt(ns)
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	lo, err := h.LinkByName("lo")
	if err == nil {
		err = h.LinkSetUp(lo)
	}
	if err != nil {
		t.Fatal(err)
	}
	return ns
}

// graphcc.p4 on BMv2 with two ports in a namespace (veths s1-h1, s2-h2),
// packets written and read on the host ends with packet sockets: IPv4
// forwarding, TTL and checksum, drops, ECMP, the counters (flow starts
// among them: the ECN-capable frames whose BTH PSN is 0), and ECN marking
// against the enqueue-depth histogram.
func TestBMv2Dataplane(t *testing.T) {
	requireRoot(t)
	requireBinaryP4RT(t, "simple_switch_grpc")
	ctx := testCtx(t)
	info := testP4Info(t)
	ns := switchNetns(t, "dp")
	tmp := fmt.Sprintf("gcd%d", os.Getpid()%100000)
	for i := 1; i <= 2; i++ {
		if err := lab.CreateVeth(lab.Veth{Name: fmt.Sprintf("s%d", i), NS: ns}, lab.Veth{Name: fmt.Sprintf("h%d", i), NS: ns}, tmp); err != nil {
			t.Fatal(err)
		}
	}
	sw, _ := startBMv2P4RT(t, ctx, "dp", 1, ns, "s1", "s2")
	if err := sw.SetPipeline(ctx, info, p4src.BMv2JSON); err != nil {
		t.Fatal(err)
	}
	route := func(ip string, act *p4v1.Action) *p4v1.TableEntry {
		a := netip.MustParseAddr(ip).As4()
		return &p4v1.TableEntry{TableId: info.IPv4Route, Match: []*p4v1.FieldMatch{{
			FieldId:        info.FieldDstAddr,
			FieldMatchType: &p4v1.FieldMatch_Lpm{Lpm: &p4v1.FieldMatch_LPM{Value: a[:], PrefixLen: 32}},
		}}, Action: tableAction(act)}
	}
	setPort := func(n uint64) *p4v1.Action { return action(info.SetPort, param(info.ParamPort, n)) }
	entries := []*p4v1.TableEntry{
		route("10.0.0.1", setPort(1)),
		route("10.0.0.2", setPort(2)),
		route("10.0.0.3", action(info.SetGroup, param(info.ParamGroup, 1), param(info.ParamGroupSize, 2))),
	}
	for m := range uint64(2) {
		entries = append(entries, &p4v1.TableEntry{TableId: info.ECMPGroup,
			Match:  []*p4v1.FieldMatch{exact(info.FieldGroup, 1), exact(info.FieldMember, m)},
			Action: tableAction(setPort(m + 1))})
	}
	entries = append(entries, DepthBucketEntries(info)...)
	// Port 2 marks a packet iff it leaves more than kmin = kmax = 1 packet's
	// bytes behind: iff its deq_qdepth >= 2. Port 1 has no setting.
	const pkt = control.QueuePacketBytes
	setECN := func(typ p4v1.Update_Type, e ECNParams) {
		t.Helper()
		if err := sw.Write(ctx, Updates(typ, []*p4v1.TableEntry{ECNEntry(info, 2, e)})...); err != nil {
			t.Fatal(err)
		}
	}
	if err := sw.Write(ctx, Updates(p4v1.Update_INSERT, entries)...); err != nil {
		t.Fatal(err)
	}
	setECN(p4v1.Update_INSERT, ECNParams{KMin: pkt, KMax: pkt, PMax: p4src.PMaxOne})

	h1, h2 := packetSocket(t, ns, "h1"), packetSocket(t, ns, "h2")
	h1.drain()
	h2.drain()
	// burst sends n packets to dst and returns what h2 receives of them,
	// and the counters before and after.
	// Every fourth frame sent has PSN 0: a queue pair's first packet.
	sent, psn0 := 0, int64(0)
	burst := func(n int, dst string, ecn uint8) (got []gopacket.Packet, before, after portCounterSnap) {
		t.Helper()
		before = readPortCounters(t, ctx, sw, info, func(portCounterSnap) bool { return true })
		psn0 = 0
		for range n {
			sent++
			psn := uint32(sent % 4)
			if psn == 0 {
				psn0++
			}
			h1.send(t, frame(t, dst, 64, ecn, uint16(1000+sent), psn))
		}
		after = readPortCounters(t, ctx, sw, info, func(c portCounterSnap) bool { return c.tx[1]+c.tx[2] >= before.tx[1]+before.tx[2]+int64(n) })
		if dst == "10.0.0.2" {
			got = h2.receive(t, ctx, n)
		}
		return got, before, after
	}
	// BMv2's own pace makes a queue: no rate limit needed. In a FIFO
	// that only these packets use, packet j leaves at least m packets
	// behind iff packet j+m met at least m at enqueue, so the packets
	// marked for deq_qdepth >= m would be as many as the histogram's
	// depths >= m; BMv2 reads the queue sizes while its ingress and egress
	// threads run, so the two may differ by a packet or two. The last
	// packets of a burst leave nothing behind: never marked.
	const slack = 3
	checkMarks := func(what string, got []gopacket.Packet, before, after portCounterSnap, lo, hi int64) {
		t.Helper()
		var ce int64
		for i, p := range got {
			ip := p.Layer(layers.LayerTypeIPv4).(*layers.IPv4)
			if ip.TTL != 63 || !checksumOK(ip.Contents) {
				t.Errorf("%s: forwarded packet with TTL %d (want 63), header checksum ok: %v", what, ip.TTL, checksumOK(ip.Contents))
			}
			if ip.TOS&3 == 3 {
				ce++
				if i >= len(got)-2 {
					t.Errorf("%s: packet %d of %d marked, it left at most 1 packet behind", what, i, len(got))
				}
			}
		}
		marked := after.marked[2] - before.marked[2]
		if ce != marked || marked < lo || marked > hi || after.marked[1] != before.marked[1] {
			t.Errorf("%s: %d received CE, marked_port[2] +%d, want equal and in [%d, %d]; marked_port[1] +%d, want 0 (no setting)",
				what, ce, marked, lo, hi, after.marked[1]-before.marked[1])
		}
	}
	deeper := func(before, after portCounterSnap, m int64) (n int64) {
		for b := control.DepthBucket(m); b < control.DepthBuckets; b++ {
			n += after.hist[2][b] - before.hist[2][b]
		}
		return n
	}

	const n = 20
	got, before, after := burst(n, "10.0.0.2", 2)
	d2 := deeper(before, after, 2)
	checkMarks("kmin = kmax = 1 packet", got, before, after, max(0, d2-slack), d2+slack)
	if d := after.starts[2] - before.starts[2]; d != psn0 || psn0 == 0 || after.starts[1] != 0 {
		t.Errorf("flow_starts[2] +%d, want the %d frames of PSN 0; flow_starts[1] %d, want 0", d, psn0, after.starts[1])
	}
	for i, p := range got {
		if b, ok := p.Layer(hostgen.LayerTypeBTH).(*hostgen.BTH); !ok || len(p.Data()) != control.QueuePacketBytes || b.OpCode != hostgen.OpSendOnly {
			t.Errorf("forwarded frame %d: %d bytes, BTH %+v: want the %d-byte frame sent, BTH and all", i, len(p.Data()), b, control.QueuePacketBytes)
			break
		}
	}
	t.Logf("%d packets, kmin = kmax = 1 packet: %d marked CE; enqueue depths %v", n, after.marked[2]-before.marked[2], after.hist[2])

	// Drops: TTL would reach 0; no route. Counted in, not out.
	h1.send(t, frame(t, "10.0.0.2", 1, 2, 999, 0))
	h1.send(t, frame(t, "10.0.0.99", 64, 2, 999, 0))
	c := readPortCounters(t, ctx, sw, info, func(c portCounterSnap) bool { return c.rx[1] >= after.rx[1]+2 })
	if c.rx[1] != n+2 || c.tx[2] != n || c.tx[1] != 0 || c.hist[2].Count() != n || c.starts[2] != psn0 {
		t.Errorf("rx_port[1] %d (want %d), tx_port[2] %d (want %d), tx_port[1] %d (want 0), enq_depth of port 2 counts %d (want %d), flow_starts[2] %d (want %d)",
			c.rx[1], n+2, c.tx[2], n, c.tx[1], c.hist[2].Count(), n, c.starts[2], psn0)
	}

	// Packets that are not ECN-capable (ACKs, NACKs, CNPs) are never
	// marked, take the control queue and stay out of the queue feature's
	// histogram.
	got, before, after = burst(n, "10.0.0.2", 0)
	checkMarks("not ECN-capable", got, before, after, 0, 0)
	if d, h, s := after.tx[2]-before.tx[2], after.hist[2].Count()-before.hist[2].Count(), after.starts[2]-before.starts[2]; d != n || h != 0 || s != 0 {
		t.Errorf("not ECN-capable: tx_port[2] +%d (want %d), enq_depth of port 2 +%d, flow_starts[2] +%d (want 0, 0: %d had PSN 0)", d, n, h, s, psn0)
	}

	// ECMP over ports 1 and 2: flows spread by their UDP ports; port 1
	// has no ECN setting.
	_, before, after = burst(n, "10.0.0.3", 2)
	if d1, d2 := after.tx[1]-before.tx[1], after.tx[2]-before.tx[2]; d1 == 0 || d2 == 0 || d1+d2 != n || after.marked[1] != 0 || after.hist[2].Count() != after.tx[2]-n {
		t.Errorf("ECMP: tx_port[1] +%d, tx_port[2] +%d (want %d, some on each), marked_port[1] %d (want 0), enq_depth of port 2 counts %d (want tx_port[2] %d less the %d not ECN-capable)",
			d1, d2, n, after.marked[1], after.hist[2].Count(), after.tx[2], n)
	}
	if s := after.starts[1] + after.starts[2] - before.starts[1] - before.starts[2]; s != psn0 {
		t.Errorf("ECMP: flow_starts +%d over both ports, want the %d frames of PSN 0", s, psn0)
	}
	h2.drain()

	// MODIFY: thresholds at BMv2's queue capacity (64 packets) mark nothing.
	setECN(p4v1.Update_MODIFY, ECNParams{KMin: 64 * pkt, KMax: 64 * pkt, PMax: p4src.PMaxOne})
	// Bursts stay under 32 frames: BMv2 captures port 1 on a packet socket
	// with the default receive buffer, which holds about 32 such frames.
	const big = 28
	got, before, after = burst(big, "10.0.0.2", 2)
	checkMarks("kmin = kmax = 64 packets", got, before, after, 0, 0)

	// MODIFY: the probabilistic range, kmin 1 packet, kmax 7, pmax 1/2:
	// packets leaving 8 or more behind are all marked, 1 or none never.
	setECN(p4v1.Update_MODIFY, ECNParams{KMin: pkt, KMax: 7 * pkt, PMax: p4src.PMaxOne / 2})
	got, before, after = burst(big, "10.0.0.2", 2)
	checkMarks("pmax 1/2 from 1 to 7 packets", got, before, after, max(0, deeper(before, after, 8)-slack), deeper(before, after, 2)+slack)
	var hist control.DepthHist
	for b := range hist {
		hist[b] = after.hist[2][b] - before.hist[2][b]
	}
	t.Logf("burst of %d, pmax 1/2 from 1 to 7 packets: %d marked CE; enqueue depths %v", big, after.marked[2]-before.marked[2], hist)
}

type portCounterSnap struct {
	rx, tx, marked, starts [3]int64 // packets, by BMv2 port 0..2
	hist                   [3]control.DepthHist
}

// readPortCounters reads ports 0..2's counters (wildcard reads) until done
// says they are complete, and fails the test if they are not within 10
// seconds.
func readPortCounters(t *testing.T, ctx context.Context, sw *Switch, info *P4Info, done func(portCounterSnap) bool) portCounterSnap {
	t.Helper()
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	var vals []CounterValue
	for {
		var err error
		vals, err = sw.ReadCounters(ctx, vals[:0], []*p4v1.CounterEntry{
			{CounterId: info.RxPort}, {CounterId: info.TxPort}, {CounterId: info.MarkedPort}, {CounterId: info.EnqDepth},
			{CounterId: info.FlowStarts}})
		if err != nil {
			t.Fatal(err)
		}
		var c portCounterSnap
		for _, v := range vals {
			port := v.Index
			if v.Counter == info.EnqDepth {
				port = v.Index / p4src.DepthBuckets
			}
			if port > 2 {
				continue
			}
			switch v.Counter {
			case info.RxPort:
				c.rx[port] = v.Packets
			case info.TxPort:
				c.tx[port] = v.Packets
			case info.MarkedPort:
				c.marked[port] = v.Packets
			case info.FlowStarts:
				c.starts[port] = v.Packets
			case info.EnqDepth:
				c.hist[port][v.Index%p4src.DepthBuckets] = v.Packets
			}
		}
		if done(c) {
			return c
		}
		select {
		case <-ctx.Done():
			t.Fatalf("counters never complete: rx_port %v, tx_port %v, marked_port %v", c.rx, c.tx, c.marked)
		case <-time.After(10 * time.Millisecond):
		}
	}
}

// checksumOK reports whether an IPv4 header's ones'-complement sum is
// 0xffff.
func checksumOK(h []byte) bool {
	var sum uint32
	for i := 0; i+1 < len(h); i += 2 {
		sum += uint32(h[i])<<8 | uint32(h[i+1])
	}
	for sum > 0xffff {
		sum = sum&0xffff + sum>>16
	}
	return sum == 0xffff
}

// frame is a 1048-byte RoCEv2 frame from 10.0.0.1 to dst with ECN field
// ecn (2: ECT(0)): a SEND Only BTH of PSN psn, then zeros.
func frame(t *testing.T, dst string, ttl, ecn uint8, sport uint16, psn uint32) []byte {
	eth := &layers.Ethernet{SrcMAC: net.HardwareAddr{2, 0, 0, 0, 0, 1}, DstMAC: lab.FabricMAC, EthernetType: layers.EthernetTypeIPv4}
	ip := &layers.IPv4{Version: 4, IHL: 5, TOS: ecn, TTL: ttl, Protocol: layers.IPProtocolUDP,
		SrcIP: net.IPv4(10, 0, 0, 1), DstIP: net.ParseIP(dst)}
	udp := &layers.UDP{SrcPort: layers.UDPPort(sport), DstPort: hostgen.RoCEv2Port}
	udp.SetNetworkLayerForChecksum(ip)
	bth := &hostgen.BTH{OpCode: hostgen.OpSendOnly, PKey: 0xffff, DestQP: uint32(sport), AckReq: true, PSN: psn}
	buf := gopacket.NewSerializeBuffer()
	payload := make([]byte, control.QueuePacketBytes-14-20-8-hostgen.BTHLen)
	err := gopacket.SerializeLayers(buf, gopacket.SerializeOptions{FixLengths: true, ComputeChecksums: true}, eth, ip, udp, bth, gopacket.Payload(payload))
	if err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

type psock struct{ fd int }

func packetSocket(t testing.TB, ns netns.NsHandle, ifname string) *psock {
	var fd int
	err := namespace.Do(ns, func() error {
		ifi, err := net.InterfaceByName(ifname)
		if err != nil {
			return err
		}
		proto := int(uint16(unix.ETH_P_ALL)<<8 | uint16(unix.ETH_P_ALL)>>8)
		fd, err = unix.Socket(unix.AF_PACKET, unix.SOCK_RAW, proto)
		if err != nil {
			return err
		}
		return unix.Bind(fd, &unix.SockaddrLinklayer{Protocol: uint16(proto), Ifindex: ifi.Index})
	})
	if err != nil {
		t.Fatalf("packet socket on %s: %v", ifname, err)
	}
	t.Cleanup(func() { unix.Close(fd) })
	tv := unix.Timeval{Usec: 100000}
	unix.SetsockoptTimeval(fd, unix.SOL_SOCKET, unix.SO_RCVTIMEO, &tv)
	unix.SetsockoptInt(fd, unix.SOL_SOCKET, unix.SO_RCVBUFFORCE, 8<<20) // a burst fits
	return &psock{fd}
}

func (s *psock) send(t *testing.T, b []byte) {
	if _, err := unix.Write(s.fd, b); err != nil {
		t.Fatal(err)
	}
}

// drain discards what is queued.
func (s *psock) drain() {
	buf := make([]byte, 2048)
	for {
		if n, _, err := unix.Recvfrom(s.fd, buf, unix.MSG_DONTWAIT); err != nil || n < 0 {
			return
		}
	}
}

// receive returns the next n UDP/4791 IPv4 frames that arrive (waiting
// until ctx ends), ignoring others.
func (s *psock) receive(t *testing.T, ctx context.Context, n int) []gopacket.Packet {
	var got []gopacket.Packet
	buf := make([]byte, 2048)
	for len(got) < n {
		if ctx.Err() != nil {
			t.Fatalf("received %d of %d packets", len(got), n)
		}
		m, _, err := unix.Recvfrom(s.fd, buf, 0)
		if err != nil {
			continue // timeout: look at ctx again
		}
		p := gopacket.NewPacket(append([]byte(nil), buf[:m]...), layers.LayerTypeEthernet, gopacket.Default)
		if u, ok := p.Layer(layers.LayerTypeUDP).(*layers.UDP); ok && u.DstPort == 4791 {
			got = append(got, p)
		}
	}
	return got
}
