package hostgen

import (
	"context"
	"fmt"
	"net"
	"net/netip"
	"testing"
	"time"

	"graphcc/topo"
	"graphcc/trace"
)

// BenchmarkHostsSocketPair measures two hosts of one process moving one
// flow of b.N full segments across a socket pair, each acknowledged, at
// scales 10 and 100 (a 25 Gbps line is 2.5 Gbps and 250 Mbps real): the
// real goodput and the share of the line's goodput it reaches. Where the
// share falls short of 100 % the hosts are CPU-bound at that scale.
func BenchmarkHostsSocketPair(b *testing.B) {
	for _, s := range []float64{10, 100} {
		b.Run(fmt.Sprintf("scale=%g", s), func(b *testing.B) { benchPair(b, s) })
	}
}

func benchPair(b *testing.B, scale float64) {
	f, err := topo.Clos(topo.ClosConfig{Leaves: 1, Spines: 1, HostsPerLeaf: 2,
		HostRate: 25 * topo.Gbps, FabricRate: 100 * topo.Gbps, LinkDelay: topo.Microsecond})
	if err != nil {
		b.Fatal(err)
	}
	t := &testing.T{}
	ca, cb := connPair(t)
	defer ca.Close()
	defer cb.Close()
	ips := map[topo.NodeID]netip.Addr{0: ipA, 1: ipB}
	var hosts []*Host
	for i := range 2 {
		h, err := NewHost(HostConfig{Node: topo.NodeID(i), Fabric: f, Iface: "pair", FabricMAC: net.HardwareAddr(macF[:]),
			IP: ips[topo.NodeID(i)], Peers: ips, Window: benchWindow})
		if err != nil {
			b.Fatal(err)
		}
		hosts = append(hosts, h)
	}
	flows := []Flow{{Flow: trace.Flow{Src: 0, Dst: 1, Size: int64(b.N) * SegmentPayload}, QP: 1, SPort: 10000}}
	clock, err := NewClock(time.Now(), scale)
	if err != nil {
		b.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	errc := make(chan error, 2)
	b.ReportAllocs()
	b.ResetTimer()
	t0 := time.Now()
	for i, c := range []*Conn{ca, cb} {
		go func() { errc <- hosts[i].run(ctx, c, [6]byte{2, 0, 0, 0, 0, byte(i)}, flows, clock) }()
	}
	<-hosts[0].Done()
	took := time.Since(t0)
	b.StopTimer()
	cancel()
	<-errc
	<-errc
	mbps := float64(b.N) * SegmentPayload * 8 / took.Seconds() / 1e6
	b.ReportMetric(mbps, "Mbps")
	line := 25e3 / scale * SegmentPayload / MaxFrameLen // goodput of the line, Mbps
	b.ReportMetric(100*mbps/line, "%line")
}

var benchWindow int64 = 0

// BenchmarkConnPair measures one frame written to and read from a socket
// pair through Conn: the floor of the hosts' per-frame cost.
func BenchmarkConnPair(b *testing.B) {
	t := &testing.T{}
	a, c := connPair(t)
	defer a.Close()
	defer c.Close()
	frame := make([]byte, MaxFrameLen)
	buf := make([]byte, 2048)
	b.ReportAllocs()
	for b.Loop() {
		if err := a.WriteFrame(frame); err != nil {
			b.Fatal(err)
		}
		if _, err := c.ReadFrame(buf); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkEncodeDecode measures encoding and decoding one full data frame,
// content pattern and check included.
func BenchmarkEncodeDecode(b *testing.B) {
	enc, dec := NewEncoder(), NewDecoder()
	f := dataFrame(1, 5000, SegmentPayload)
	var got Frame
	b.ReportAllocs()
	for b.Loop() {
		fr, err := enc.Encode(&f)
		if err != nil {
			b.Fatal(err)
		}
		if err := dec.Decode(fr, &got); err != nil {
			b.Fatal(err)
		}
	}
}
