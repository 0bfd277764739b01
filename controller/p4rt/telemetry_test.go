package p4rt

import (
	"slices"
	"strconv"
	"strings"
	"testing"

	p4v1 "github.com/p4lang/p4runtime/go/p4/v1"

	"graphcc/control"
	"graphcc/controller/lab"
	"graphcc/p4src"
	"graphcc/topo"
)

// cells returns values for every cell the query of t reads, from a
// function of (counter, index).
func cells(t *SwitchTelemetry, f func(counter uint32, index int64) (packets, bytes int64)) []CounterValue {
	var vals []CounterValue
	for _, q := range t.Query() {
		p, b := f(q.GetCounterId(), q.GetIndex().GetIndex())
		vals = append(vals, CounterValue{Counter: q.GetCounterId(), Index: q.GetIndex().GetIndex(), Packets: p, Bytes: b})
	}
	return vals
}

func TestSwitchTelemetryDecode(t *testing.T) {
	info := testP4Info(t)
	p := mustPlan(t, topo.DefaultClos())
	leaf := &p.Switches[0]
	tel, err := NewSwitchTelemetry(info, p, 0, nil)
	if err != nil {
		t.Fatal(err)
	}
	hosts := 0
	for _, pp := range leaf.Ports {
		if !p.Fabric.Nodes[pp.Peer].Switch {
			hosts++
		}
	}
	// rx_port only on links from hosts; every bucket without queue depths
	if q, want := tel.Query(), hosts+len(leaf.Ports)*(3+control.DepthBuckets); len(q) != want {
		t.Fatalf("query of %d cells, want %d", len(q), want)
	}
	// Counter values as a function of the read (round), the port number and
	// the bucket, so every delta is known.
	value := func(round int64) func(uint32, int64) (int64, int64) {
		return func(c uint32, i int64) (int64, int64) {
			switch c {
			case info.RxPort:
				return round * i, round * i * 1000
			case info.TxPort:
				return round * i, round * i * 2000
			case info.MarkedPort:
				return round, round * 100 * i
			case info.FlowStarts:
				return round * 3 * i, 0
			case info.EnqDepth:
				return round * (i%24 + 1), 0
			}
			t.Fatalf("unexpected counter %d", c)
			return 0, 0
		}
	}
	dst := make([]control.PortSample, len(p.Fabric.Ports))
	for round := int64(1); round <= 3; round++ {
		if err := tel.Decode(dst, cells(tel, value(round*round))); err != nil {
			t.Fatal(err)
		}
		// deltas between round*round and (round-1)*(round-1)
		d := round*round - (round-1)*(round-1)
		for _, pp := range leaf.Ports {
			n := int64(pp.Num)
			s := dst[pp.Port]
			if s.TxBytes != d*n*2000 || s.MarkedBytes != d*100*n || s.QueueBytes != -1 || s.EnqDepthMax != -1 || s.FlowStarts != d*3*n {
				t.Errorf("round %d port %d: %+v", round, n, s)
			}
			for b := range s.EnqHist {
				if s.EnqHist[b] != d*int64(b+1) {
					t.Errorf("round %d port %d bucket %d: %d, want %d", round, n, b, s.EnqHist[b], d*int64(b+1))
				}
			}
			host := pp.Port.Reverse()
			if p.Fabric.Nodes[pp.Peer].Switch {
				if dst[host].TxBytes != 0 {
					t.Errorf("spine port %d's reverse got a sample", n)
				}
				continue
			}
			if h := dst[host]; h.TxBytes != d*n*1000 || h.MarkedBytes != 0 || h.QueueBytes != -1 || h.EnqPackets() != 0 || h.FlowStarts != 0 {
				t.Errorf("round %d host on port %d: %+v", round, n, h)
			}
		}
	}

	// The counters restart (the pipeline was pushed again): deltas from zero.
	if err := tel.Decode(dst, cells(tel, value(1))); err != nil {
		t.Fatal(err)
	}
	if s := dst[leaf.Ports[0].Port]; s.TxBytes != 2000 || s.EnqHist[0] != 1 || s.FlowStarts != 3*int64(leaf.Ports[0].Num) {
		t.Errorf("after a restart: %+v", s)
	}

	// A missing cell is an error naming the switch and the cell, and the
	// state stays: the next full read gives the deltas since the last good one.
	vals := cells(tel, value(5))
	for i, v := range vals {
		if v.Counter == info.EnqDepth && v.Index == int64(leaf.Ports[2].Num)*24+7 {
			vals = append(vals[:i], vals[i+1:]...)
			break
		}
	}
	err = tel.Decode(dst, vals)
	if err == nil || !strings.Contains(err.Error(), "switch leaf0") || !strings.Contains(err.Error(), p4src.CounterEnqDepth) {
		t.Errorf("missing cell: %v", err)
	}
	vals = cells(tel, value(5))
	vals = slices.DeleteFunc(vals, func(v CounterValue) bool {
		return v.Counter == info.FlowStarts && v.Index == int64(leaf.Ports[1].Num)
	})
	err = tel.Decode(dst, vals)
	if want := p4src.CounterFlowStarts + "[" + strconv.Itoa(int(leaf.Ports[1].Num)) + "]"; err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("missing flow_starts cell: %v, want it to name %s", err, want)
	}
	if err := tel.Decode(dst, cells(tel, value(2))); err != nil {
		t.Fatal(err)
	}
	if s := dst[leaf.Ports[0].Port]; s.TxBytes != 2000 {
		t.Errorf("after a failed decode: %+v", s)
	}
}

// TestSwitchTelemetryQueueDepth checks the query with the lab's queue
// depths: only the enq_depth buckets below each port's depth are read (19
// of 24 on the default leaf's 25 Gbps ports, 23 on its 100 Gbps uplinks),
// the rest decode as 0, a missing readable cell is still an error, and a
// wildcard answer decodes the same.
func TestSwitchTelemetryQueueDepth(t *testing.T) {
	info := testP4Info(t)
	p := mustPlan(t, topo.DefaultClos())
	depth := make([]int64, len(p.Fabric.Ports))
	for _, sp := range p.Switches {
		for _, pp := range sp.Ports {
			depth[pp.Port] = lab.QueueDepth(p.Fabric.Ports[pp.Port].Rate, 0)
		}
	}
	leaf := &p.Switches[0]
	tel, err := NewSwitchTelemetry(info, p, 0, depth)
	if err != nil {
		t.Fatal(err)
	}
	readable := func(pp lab.PortPlan) int64 { // buckets a packet can reach
		n := int64(0)
		for b := range control.DepthBuckets {
			if control.DepthLow(b) < depth[pp.Port] {
				n++
			}
		}
		return n
	}
	want := 0
	for _, pp := range leaf.Ports {
		want += 3 + int(readable(pp))
		if !p.Fabric.Nodes[pp.Peer].Switch {
			want++
		}
	}
	q := tel.Query()
	if len(q) != want || want != 190 {
		t.Errorf("query of %d cells, want %d (190)", len(q), want)
	}
	for _, c := range q {
		if c.GetCounterId() != info.EnqDepth {
			continue
		}
		i := c.GetIndex().GetIndex()
		for _, pp := range leaf.Ports {
			if int64(pp.Num) == i/control.DepthBuckets && i%control.DepthBuckets >= readable(pp) {
				t.Errorf("port %d: bucket %d read, beyond its queue of %d packets", pp.Num, i%control.DepthBuckets, depth[pp.Port])
			}
		}
	}
	value := func(c uint32, i int64) (int64, int64) {
		if c == info.EnqDepth {
			return i%24 + 1, 0
		}
		return i, 1000 * i
	}
	check := func(what string, dst []control.PortSample) {
		t.Helper()
		for _, pp := range leaf.Ports {
			s := dst[pp.Port]
			if s.TxBytes != 1000*int64(pp.Num) {
				t.Errorf("%s: port %d: tx %d", what, pp.Num, s.TxBytes)
			}
			for b := range s.EnqHist {
				want := int64(b + 1)
				if int64(b) >= readable(pp) {
					want = 0
				}
				if s.EnqHist[b] != want && (what == "query" || int64(b) < readable(pp)) {
					t.Errorf("%s: port %d bucket %d: %d, want %d", what, pp.Num, b, s.EnqHist[b], want)
				}
			}
		}
	}
	dst := make([]control.PortSample, len(p.Fabric.Ports))
	if err := tel.Decode(dst, cells(tel, value)); err != nil {
		t.Fatal(err)
	}
	check("query", dst)

	top := readable(leaf.Ports[0]) - 1
	var vals []CounterValue
	for _, v := range cells(tel, value) {
		if v.Counter != info.EnqDepth || v.Index != int64(leaf.Ports[0].Num)*24+top {
			vals = append(vals, v)
		}
	}
	if err := tel.Decode(dst, vals); err == nil || !strings.Contains(err.Error(), p4src.CounterEnqDepth) {
		t.Errorf("without the top readable bucket: %v", err)
	}

	wild, _ := NewSwitchTelemetry(info, p, 0, depth)
	vals = vals[:0]
	for _, id := range []uint32{info.RxPort, info.TxPort, info.MarkedPort, info.FlowStarts} {
		for i := range int64(p4src.PortSlots) {
			vals = append(vals, CounterValue{Counter: id, Index: i, Packets: i, Bytes: 1000 * i})
		}
	}
	for i := range int64(p4src.PortSlots * p4src.DepthBuckets) {
		vals = append(vals, CounterValue{Counter: info.EnqDepth, Index: i, Packets: i%24 + 1})
	}
	if err := wild.Decode(dst, vals); err != nil {
		t.Fatal(err)
	}
	check("wildcard", dst)

	for _, bad := range [][]int64{depth[:3], func() []int64 { d := slices.Clone(depth); d[leaf.Ports[1].Port] = -1; return d }()} {
		if _, err := NewSwitchTelemetry(info, p, 0, bad); err == nil {
			t.Errorf("queue depths %v accepted", bad[:min(len(bad), 8)])
		}
	}
}

// A wildcard answer (whole arrays, other ports' cells too) decodes the same.
func TestSwitchTelemetryWildcard(t *testing.T) {
	info := testP4Info(t)
	p := mustPlan(t, smallClos())
	tel, _ := NewSwitchTelemetry(info, p, 0, nil)
	var vals []CounterValue
	for _, id := range []uint32{info.RxPort, info.TxPort, info.MarkedPort, info.FlowStarts} {
		for i := range int64(p4src.PortSlots) {
			vals = append(vals, CounterValue{Counter: id, Index: i, Packets: i, Bytes: 10 * i})
		}
	}
	for i := range int64(p4src.PortSlots * p4src.DepthBuckets) {
		vals = append(vals, CounterValue{Counter: info.EnqDepth, Index: i, Packets: i})
	}
	vals = append(vals, CounterValue{Counter: 0x12ffffff, Index: 1, Packets: 1}) // another counter
	dst := make([]control.PortSample, len(p.Fabric.Ports))
	if err := tel.Decode(dst, vals); err != nil {
		t.Fatal(err)
	}
	pp := p.Switches[0].Ports[1]
	if s := dst[pp.Port]; s.TxBytes != 10*int64(pp.Num) || s.EnqHist[3] != int64(pp.Num)*24+3 || s.FlowStarts != int64(pp.Num) {
		t.Errorf("port %d: %+v", pp.Num, s)
	}
	if n := len(tel.WildcardQuery()); n != 5 {
		t.Errorf("wildcard query of %d entities", n)
	}
}

func TestDelta(t *testing.T) {
	tests := []struct{ cur, prev, want int64 }{
		{10, 3, 7},
		{3, 3, 0},
		{3, 10, 3},  // restarted
		{-1, -2, 1}, // past 2^63 as uint64: still growing
	}
	for _, tc := range tests {
		if got := delta(tc.cur, tc.prev); got != tc.want {
			t.Errorf("delta(%d, %d) = %d, want %d", tc.cur, tc.prev, got, tc.want)
		}
	}
}

// The control loop's two calls against a fabric of fake switches: one
// batched read per switch decoded into the fabric's samples, and one
// batched MODIFY per switch with changed settings, read back.
func TestFabricRuntime(t *testing.T) {
	ctx := testCtx(t)
	info := testP4Info(t)
	p := mustPlan(t, topo.DefaultClos())
	fakes := make([]*fakeP4RT, len(p.Switches))
	clients := make([]*Switch, len(p.Switches))
	for i, sp := range p.Switches {
		fakes[i] = newFakeP4RT(sp.DeviceID)
		addr, _ := serveFake(t, fakes[i])
		clients[i] = dialFake(t, ctx, sp.Name, addr, sp.DeviceID, 1)
	}
	r, err := NewFabric(p, info, clients)
	if err != nil {
		t.Fatal(err)
	}
	ecn := control.StaticSettings(p.Fabric)
	if _, err := r.SetECN(ctx, ecn); err == nil {
		t.Error("SetECN before Program")
	}
	if err := r.Program(ctx, testDeviceConfig, ecn); err != nil {
		t.Fatal(err)
	}
	for i, f := range fakes {
		if _, n := f.lastWrite(); n != 1 {
			t.Errorf("%s: %d WriteRequests for the initial program", p.Switches[i].Name, n)
		}
	}

	// Telemetry: one port of leaf1 and the host behind it.
	leaf1 := &p.Switches[1]
	pp := leaf1.Ports[2]
	fakes[1].setCounter(info.TxPort, int64(pp.Num), 10, 10480)
	fakes[1].setCounter(info.MarkedPort, int64(pp.Num), 2, 2096)
	fakes[1].setCounter(info.RxPort, int64(pp.Num), 4, 4192)
	fakes[1].setCounter(info.EnqDepth, int64(pp.Num)*24+6, 10, 0)
	fakes[1].setCounter(info.FlowStarts, int64(pp.Num), 3, 0)
	samples := make([]control.PortSample, len(p.Fabric.Ports))
	reads := fakes[1].readCount()
	if err := r.ReadTelemetry(ctx, samples); err != nil {
		t.Fatal(err)
	}
	if fakes[1].readCount() != reads+1 {
		t.Errorf("%d ReadRequests per switch, want 1", fakes[1].readCount()-reads)
	}
	s := samples[pp.Port]
	if s.TxBytes != 10480 || s.MarkedBytes != 2096 || s.EnqHist[6] != 10 || s.EnqPackets() != 10 || s.QueueBytes != -1 || s.FlowStarts != 3 {
		t.Errorf("leaf1 port %d: %+v", pp.Num, s)
	}
	// Bucket 6 holds depths 8 to 11 packets: the feature counts them at 9.5.
	if got, want := s.QueueFeature(), 9.5*control.QueuePacketBytes; got != want {
		t.Errorf("queue feature %v, want %v", got, want)
	}
	if h := samples[pp.Port.Reverse()]; h.TxBytes != 4192 {
		t.Errorf("host behind leaf1 port %d: %+v", pp.Num, h)
	}
	for _, sp := range p.Switches {
		for _, q := range sp.Ports {
			if q.Port != pp.Port && samples[q.Port].TxBytes != 0 {
				t.Errorf("%s port %d: %+v", sp.Name, q.Num, samples[q.Port])
			}
		}
	}
	if err := r.ReadTelemetry(ctx, samples[:3]); err == nil {
		t.Error("short sample slice accepted")
	}

	// ECN: change two ports of leaf1 only.
	cur := append([]control.ECN(nil), ecn...)
	cur[leaf1.Ports[0].Port] = control.ECN{KMin: 2000, KMax: 16000, PMax: 1}
	cur[leaf1.Ports[7].Port] = control.ECN{KMin: 32000, KMax: 256000, PMax: 0.01}
	n, err := r.SetECN(ctx, cur)
	if err != nil || n != 2 {
		t.Fatalf("SetECN: %d, %v", n, err)
	}
	for i, f := range fakes {
		_, writes := f.lastWrite()
		if want := 1 + map[bool]int{true: 1}[i == 1]; writes != want {
			t.Errorf("%s: %d WriteRequests, want %d", p.Switches[i].Name, writes, want)
		}
	}
	req, _ := fakes[1].lastWrite()
	if len(req.GetUpdates()) != 2 || req.GetUpdates()[0].GetType() != p4v1.Update_MODIFY {
		t.Errorf("ECN write: %v", req)
	}
	got, err := clients[1].ReadTable(ctx, info.ECNSettings)
	if err != nil {
		t.Fatal(err)
	}
	want, _ := EncodeECN(cur[leaf1.Ports[0].Port])
	found := false
	for _, te := range got {
		if v, _ := DecodeUint(te.GetMatch()[0].GetExact().GetValue(), 9); v == uint64(leaf1.Ports[0].Num) {
			ps := te.GetAction().GetAction().GetParams()
			kmin, _ := DecodeUint(ps[0].GetValue(), 32)
			kmax, _ := DecodeUint(ps[1].GetValue(), 32)
			pmax, _ := DecodeUint(ps[2].GetValue(), 17)
			found = ECNParams{uint32(kmin), uint32(kmax), uint32(pmax)} == want
		}
	}
	if !found {
		t.Errorf("leaf1 port %d does not read back %+v: %v", leaf1.Ports[0].Num, want, got)
	}
	if r.ECN()[leaf1.Ports[7].Port] != cur[leaf1.Ports[7].Port] {
		t.Error("ECN() does not hold the written setting")
	}
	// Nothing changed: nothing written.
	if n, err := r.SetECN(ctx, cur); n != 0 || err != nil {
		t.Errorf("unchanged SetECN: %d, %v", n, err)
	}

	// A switch failing a write: the error names it; the others' writes
	// happen; its settings are not taken as written.
	fakes[2].setFailures(errFake, nil)
	cur2 := append([]control.ECN(nil), cur...)
	for _, sp := range p.Switches[1:3] {
		cur2[sp.Ports[0].Port] = control.ECN{KMin: 4000, KMax: 32000, PMax: 0.5}
	}
	_, err = r.SetECN(ctx, cur2)
	if err == nil || !strings.Contains(err.Error(), "switch "+p.Switches[2].Name) {
		t.Errorf("failed switch write: %v", err)
	}
	if r.ECN()[p.Switches[1].Ports[0].Port] != cur2[p.Switches[1].Ports[0].Port] || r.ECN()[p.Switches[2].Ports[0].Port] == cur2[p.Switches[2].Ports[0].Port] {
		t.Error("ECN() after a partial failure")
	}
	// Back to cur once the switch answers again: its write may have been
	// applied in part, so every entry of it is written, including the
	// ports cur and cur2 agree on.
	fakes[2].setFailures(nil, nil)
	n, err = r.SetECN(ctx, cur)
	if want := 1 + len(p.Switches[2].Ports); err != nil || n != want {
		t.Errorf("SetECN after a failed write: %d entries, %v; want %d (switch 1's one and all of switch 2's)", n, err, want)
	}
	if req, _ := fakes[2].lastWrite(); len(req.GetUpdates()) != len(p.Switches[2].Ports) {
		t.Errorf("%s: %d updates after its failed write, want all %d", p.Switches[2].Name, len(req.GetUpdates()), len(p.Switches[2].Ports))
	}
	if n, err := r.SetECN(ctx, cur); n != 0 || err != nil {
		t.Errorf("unchanged SetECN after the recovery: %d, %v", n, err)
	}
	// A switch failing a read: the error names it.
	fakes[4].setFailures(nil, errFake)
	if err := r.ReadTelemetry(ctx, samples); err == nil || !strings.Contains(err.Error(), "switch "+p.Switches[4].Name) {
		t.Errorf("failed switch read: %v", err)
	}
}
