package hostgen

import (
	"bytes"
	"context"
	"net"
	"net/netip"
	"testing"
	"time"

	"graphcc/dcqcn"
	"graphcc/metrics"
	"graphcc/topo"
	"graphcc/trace"
)

// pairFabric is two hosts under one switch, 25 Gbps host links.
func pairFabric(t *testing.T) *topo.Fabric {
	t.Helper()
	f, err := topo.Clos(topo.ClosConfig{Leaves: 1, Spines: 1, HostsPerLeaf: 2,
		HostRate: 25 * topo.Gbps, FabricRate: 100 * topo.Gbps, LinkDelay: topo.Microsecond})
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// pacingBound is the least FCT a flow of size bytes can have at line rate:
// every segment but the last paced out, nothing for the path.
func pacingBound(size, rate int64) int64 {
	var lb int64
	for off := int64(0); off+SegmentPayload < size; off += SegmentPayload {
		lb += serialization(MaxFrameLen, rate)
	}
	return lb
}

func TestHostConfigDefaults(t *testing.T) {
	f := pairFabric(t)
	h, err := NewHost(HostConfig{Node: 0, Fabric: f, Iface: "eth0", FabricMAC: net.HardwareAddr(macF[:]), IP: ipA,
		NACKInterval: -1, LossTimeout: 7})
	if err != nil {
		t.Fatal(err)
	}
	c := h.Config()
	if c.LineRate != 25*topo.Gbps || c.Window != f.MaxBDP() || c.CNPInterval != 0 ||
		c.NACKInterval != 0 || c.LossTimeout != 7 || c.DCQCN.AI != 5*topo.Mbps {
		t.Errorf("defaults %+v", c)
	}
	for _, bad := range []HostConfig{
		{Node: 0, Fabric: f, Iface: "eth0", IP: ipA},                                       // no fabric MAC
		{Node: 2, Fabric: f, Iface: "eth0", FabricMAC: net.HardwareAddr(macF[:]), IP: ipA}, // a switch
		{Node: 0, Fabric: f, Iface: "eth0", FabricMAC: net.HardwareAddr(macF[:])},          // no address
		{Node: 0, Fabric: f, FabricMAC: net.HardwareAddr(macF[:]), IP: ipA},                // no interface
		{Node: 0, Iface: "eth0", FabricMAC: net.HardwareAddr(macF[:]), IP: ipA},            // no fabric
		{Node: 0, Fabric: f, Iface: "e", FabricMAC: net.HardwareAddr(macF[:]), IP: ipA, DCQCN: dcqcnBad()},
		{Node: 0, Fabric: f, Iface: "e", FabricMAC: net.HardwareAddr(macF[:]), IP: ipA, DCQCN: dcqcnFloor(line + 1)},
	} {
		if _, err := NewHost(bad); err == nil {
			t.Errorf("%+v accepted", bad)
		}
	}
	// a floor at line rate is allowed
	if _, err := NewHost(HostConfig{Node: 0, Fabric: f, Iface: "e", FabricMAC: net.HardwareAddr(macF[:]), IP: ipA, DCQCN: dcqcnFloor(line)}); err != nil {
		t.Error(err)
	}
}

func dcqcnBad() dcqcn.Params { p := dcqcn.DefaultParams(line); p.G = 2; return p }

func dcqcnFloor(r int64) dcqcn.Params { p := dcqcn.DefaultParams(line); p.MinRate = r; return p }

// TestHostsOverSocketPair runs two hosts, each with its send and receive
// loops, across a datagram socket pair (no root needed): flows of several
// sizes both ways, every byte delivered once, every flow completed with a
// sane FCT record.
func TestHostsOverSocketPair(t *testing.T) {
	f := pairFabric(t)
	trace := []trace.Flow{
		{Src: 0, Dst: 1, Size: 1000, Start: 0, DPort: 100},
		{Src: 1, Dst: 0, Size: 1, Start: 0, DPort: 100},
		{Src: 0, Dst: 1, Size: 50_000, Start: 10 * us, DPort: 100},
		{Src: 1, Dst: 0, Size: 20_500, Start: 10 * us, DPort: 200},
		{Src: 0, Dst: 1, Size: 300_000, Start: 20 * us, DPort: 100},
		{Src: 1, Dst: 0, Size: 200_000, Start: 30 * us, DPort: 100},
	}
	flows, err := Schedule(f, trace, 0)
	if err != nil {
		t.Fatal(err)
	}
	runPair(t, f, flows, 100)
}

// pairHosts returns hosts 0 and 1 of f, on the socket pair's interface,
// each the other's peer.
func pairHosts(t *testing.T, f *topo.Fabric) []*Host {
	t.Helper()
	ips := map[topo.NodeID]netip.Addr{0: ipA, 1: ipB}
	hosts := make([]*Host, 2)
	for i := range hosts {
		h, err := NewHost(HostConfig{Node: topo.NodeID(i), Fabric: f, Iface: "pair", FabricMAC: net.HardwareAddr(macF[:]),
			IP: ips[topo.NodeID(i)], Peers: ips})
		if err != nil {
			t.Fatal(err)
		}
		hosts[i] = h
	}
	return hosts
}

// runPair runs hosts 0 and 1 of f over a socket pair at scale s until
// both are done, and checks their accounts.
func runPair(t *testing.T, f *topo.Fabric, flows []Flow, s float64) {
	t.Helper()
	ca, cb := connPair(t)
	hosts := pairHosts(t, f)
	clock, err := NewClock(time.Now(), s)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	errc := make(chan error, 2)
	for i, c := range []*Conn{ca, cb} {
		go func() { errc <- hosts[i].run(ctx, c, [6]byte{2, 0, 0, 0, 0, byte(i)}, flows, clock) }()
	}
	for i, h := range hosts {
		select {
		case <-h.Done():
		case err := <-errc:
			t.Fatalf("a host stopped: %v", err)
		case <-time.After(2 * time.Minute): // a hang guard, not a measurement
			t.Fatalf("host %d not done: %+v", i, h.Stats())
		}
	}
	cancel()
	for range hosts {
		if err := <-errc; err != nil {
			t.Error(err)
		}
	}
	checkHosts(t, flows, hosts)
}

// checkHosts checks that every flow was delivered exactly once and
// recorded with a sane FCT, written and read back with replay's fct.txt
// functions.
func checkHosts(t *testing.T, flows []Flow, hosts []*Host) {
	t.Helper()
	var recs []trace.FCT
	for i, h := range hosts {
		st := h.Stats()
		if st.Corrupt+st.Malformed+st.Invalid != 0 {
			t.Errorf("host %d: %+v", i, st)
		}
		for _, r := range h.ReceivedFlows() {
			if r.Delivered != r.Size || !r.Done {
				t.Errorf("host %d: flow %d: delivered %d of %d", i, r.QP, r.Delivered, r.Size)
			}
		}
		for _, s := range h.SentFlows() {
			if !s.Done || s.Sent-s.Retransmitted != s.Size {
				t.Errorf("host %d: flow %d: %+v", i, s.QP, s)
			}
		}
		recs = append(recs, h.FCTs()...)
		t.Logf("host %d: %+v", i, st)
	}
	if len(recs) != len(flows) {
		t.Fatalf("%d FCT records for %d flows", len(recs), len(flows))
	}
	for _, r := range recs {
		if lb := pacingBound(r.Size, 25*topo.Gbps); r.FCT < lb || r.Standalone <= 0 {
			t.Errorf("%+v: FCT below the pacing bound %d ps", r, lb)
		}
		t.Logf("flow %d->%d %7d B: FCT %8.2f µs, standalone %8.2f µs, slowdown %.2f",
			r.Src, r.Dst, r.Size, float64(r.FCT)/1e6, float64(r.Standalone)/1e6, float64(r.FCT)/float64(r.Standalone))
	}
	if sum := metrics.Summarize(len(flows), recs, nil); sum.Completed != len(flows) || sum.Slowdown.Count != len(flows) {
		t.Errorf("summary %+v", sum)
	}
	var buf bytes.Buffer
	if err := trace.WriteFCT(&buf, recs); err != nil {
		t.Fatal(err)
	}
	back, err := trace.ReadFCT(&buf, "fct.txt")
	if err != nil {
		t.Fatal(err)
	}
	for i, r := range back {
		w := recs[i]
		if r.Src != w.Src || r.Dst != w.Dst || r.SPort != w.SPort || r.Size != w.Size ||
			r.FCT != w.FCT/topo.Nanosecond*topo.Nanosecond || r.Standalone != w.Standalone/topo.Nanosecond*topo.Nanosecond {
			t.Errorf("fct.txt line %d: %+v, wrote %+v", i+1, r, w)
		}
	}
}

func TestHostRunErrors(t *testing.T) {
	f := pairFabric(t)
	cfg := HostConfig{Node: 0, Fabric: f, Iface: "no-such-if0", FabricMAC: net.HardwareAddr(macF[:]), IP: ipA}
	h, err := NewHost(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if err := h.Open(); err == nil {
		t.Error("opened a missing interface")
	}
	clock, _ := NewClock(time.Now(), 100)
	if err := h.Run(context.Background(), nil, clock); err == nil {
		t.Error("ran on a missing interface")
	}
	if err := h.Close(); err != nil {
		t.Error(err)
	}
	// a schedule with a peer the host has no address for
	ca, _ := connPair(t)
	h, _ = NewHost(cfg)
	flows := []Flow{{Flow: trace.Flow{Src: 0, Dst: 1, Size: 10}, QP: 1}}
	if err := h.run(context.Background(), ca, macA, flows, clock); err == nil {
		t.Error("ran a flow to a peer without an address")
	}
	if err := h.run(context.Background(), ca, macA, nil, clock); err == nil {
		t.Error("ran twice")
	}
}
