package p4rt

import (
	"fmt"

	p4v1 "github.com/p4lang/p4runtime/go/p4/v1"

	"graphcc/control"
	"graphcc/controller/lab"
	"graphcc/p4src"
	"graphcc/topo"
)

// SwitchTelemetry turns one switch's counter reads into control.PortSamples:
// the counters only grow, so it keeps the previous read and reports deltas.
// For each port of the switch: TxBytes and MarkedBytes from the tx_port and
// marked_port counters, EnqHist from the enq_depth histogram, FlowStarts
// from the flow_starts counter. For each host
// attached to the switch, the host's NIC port gets TxBytes from the
// switch's rx_port counter on that link (hosts do not mark; their queues
// are not seen). QueueBytes and EnqDepthMax are -1: BMv2 cannot tell them
// through P4Runtime. Not safe for concurrent use.
//
// Its Query reads only the cells that can count: rx_port only on links from
// hosts, and, for a port whose BMv2 egress queue depth is known, only the
// enq_depth buckets a packet can meet. BMv2 drops a packet that finds its
// queue full and records the depth a packet found before joining it, so
// every counted depth is below the queue's capacity; the buckets above
// count nothing and are taken as 0.
type SwitchTelemetry struct {
	name  string
	ports []telemetryPort
	prev  []portCounters // by ports index
	cur   []portCounters
	info  *P4Info
	index map[uint32]int       // counter id -> its kind (kindRx, …)
	byNum [p4src.PortSlots]int // BMv2 port number -> index in ports + 1, 0 if none
}

// The counter arrays a telemetry read holds, by kind: one cell per port,
// but kindEnqDepth's DepthBuckets. portCounters.seen has bit k for the
// one-cell kinds k < kindEnqDepth, then bit kindEnqDepth+b for bucket b.
const (
	kindRx = iota
	kindTx
	kindMarked
	kindFlowStarts
	kindEnqDepth
)

// The seen bits of every kind and bucket fit portCounters.seen.
var _ = [1]struct{}{}[(kindEnqDepth+control.DepthBuckets)/33]

// counterNames names the one-cell kinds' counters, for errors.
var counterNames = [kindEnqDepth]string{p4src.CounterRxPort, p4src.CounterTxPort, p4src.CounterMarkedPort, p4src.CounterFlowStarts}

type telemetryPort struct {
	num     int64       // BMv2 port number
	port    topo.PortID // the switch's egress port
	host    topo.PortID // the attached host's NIC port, or -1
	buckets int64       // enq_depth buckets read: 0..buckets-1
	want    uint32      // the seen bits of a complete read
}

type portCounters struct {
	rx, tx, marked int64 // bytes
	starts         int64 // packets
	hist           [control.DepthBuckets]int64
	seen           uint32 // bit per one-cell counter kind, then a bit per bucket
}

// NewSwitchTelemetry returns the telemetry decoder of switch sw of p. Its
// first read reports the counts since the pipeline was pushed (counters
// start at zero). queueDepth, if not nil, holds the BMv2 egress queue depth
// in packets of every switch port, by topo.PortID (0: not known), as the
// lab set it (lab.PortState.QueueDepth); Query then skips the enq_depth
// buckets no packet can reach. A nil queueDepth reads every bucket.
func NewSwitchTelemetry(info *P4Info, p *lab.Plan, sw int, queueDepth []int64) (*SwitchTelemetry, error) {
	if queueDepth != nil && len(queueDepth) != len(p.Fabric.Ports) {
		return nil, fmt.Errorf("switch telemetry: %d queue depths for %d ports", len(queueDepth), len(p.Fabric.Ports))
	}
	s := &p.Switches[sw]
	t := &SwitchTelemetry{
		name:  s.Name,
		info:  info,
		index: map[uint32]int{info.RxPort: kindRx, info.TxPort: kindTx, info.MarkedPort: kindMarked, info.FlowStarts: kindFlowStarts, info.EnqDepth: kindEnqDepth},
	}
	for _, pp := range s.Ports {
		if err := checkSlot(s, pp); err != nil {
			return nil, err
		}
		tp := telemetryPort{num: int64(pp.Num), port: pp.Port, host: -1, buckets: control.DepthBuckets}
		if !p.Fabric.Nodes[pp.Peer].Switch {
			tp.host = pp.Port.Reverse()
		}
		if queueDepth != nil {
			d := queueDepth[pp.Port]
			if d < 0 {
				return nil, fmt.Errorf("switch %s: port %d: queue depth %d is negative", s.Name, pp.Num, d)
			}
			if d > 0 {
				tp.buckets = min(int64(control.DepthBucket(d-1))+1, control.DepthBuckets)
			}
		}
		tp.want = (1<<tp.buckets-1)<<kindEnqDepth | 1<<kindTx | 1<<kindMarked | 1<<kindFlowStarts
		if tp.host >= 0 {
			tp.want |= 1 << kindRx
		}
		t.ports = append(t.ports, tp)
		t.byNum[pp.Num] = len(t.ports)
	}
	t.prev = make([]portCounters, len(t.ports))
	t.cur = make([]portCounters, len(t.ports))
	return t, nil
}

// Query returns the counter cells to read, for one Switch.ReadCounters
// call: rx_port of each port from a host, tx_port, marked_port and
// flow_starts of each port, and the port's enq_depth buckets that can
// count.
func (t *SwitchTelemetry) Query() []*p4v1.CounterEntry {
	var q []*p4v1.CounterEntry
	for _, tp := range t.ports {
		if tp.host >= 0 {
			q = append(q, &p4v1.CounterEntry{CounterId: t.info.RxPort, Index: &p4v1.Index{Index: tp.num}})
		}
	}
	for _, id := range []uint32{t.info.TxPort, t.info.MarkedPort, t.info.FlowStarts} {
		for _, tp := range t.ports {
			q = append(q, &p4v1.CounterEntry{CounterId: id, Index: &p4v1.Index{Index: tp.num}})
		}
	}
	for _, tp := range t.ports {
		for b := range tp.buckets {
			q = append(q, &p4v1.CounterEntry{CounterId: t.info.EnqDepth, Index: &p4v1.Index{Index: tp.num*control.DepthBuckets + b}})
		}
	}
	return q
}

// WildcardQuery returns the same counters as whole arrays: five entities
// instead of one per cell, but every cell of every array (p4src.PortSlots
// ports) comes back. Decode accepts either answer.
func (t *SwitchTelemetry) WildcardQuery() []*p4v1.CounterEntry {
	return []*p4v1.CounterEntry{
		{CounterId: t.info.RxPort}, {CounterId: t.info.TxPort},
		{CounterId: t.info.MarkedPort}, {CounterId: t.info.FlowStarts},
		{CounterId: t.info.EnqDepth},
	}
}

// Decode writes the samples of the switch's ports, and of the hosts
// attached to it, into dst (indexed by topo.PortID) from one read's
// values, as deltas since the previous Decode. A counter that went down
// (the pipeline was pushed again) counts from zero. Values of other cells
// are ignored; a missing cell is an error and leaves the state as it was.
func (t *SwitchTelemetry) Decode(dst []control.PortSample, vals []CounterValue) error {
	clear(t.cur)
	for _, v := range vals {
		kind, ok := t.index[v.Counter]
		if !ok {
			continue
		}
		num, bucket := v.Index, int64(0)
		if kind == kindEnqDepth {
			num, bucket = v.Index/control.DepthBuckets, v.Index%control.DepthBuckets
		}
		if v.Index < 0 || num >= p4src.PortSlots || t.byNum[num] == 0 {
			continue
		}
		c := &t.cur[t.byNum[num]-1]
		switch kind {
		case kindRx:
			c.rx = v.Bytes
		case kindTx:
			c.tx = v.Bytes
		case kindMarked:
			c.marked = v.Bytes
		case kindFlowStarts:
			c.starts = v.Packets
		case kindEnqDepth:
			c.hist[bucket] = v.Packets
		}
		c.seen |= 1 << (kind + int(bucket))
	}
	for i, tp := range t.ports {
		if t.cur[i].seen&tp.want != tp.want {
			return fmt.Errorf("switch %s: telemetry of port %d: %s", t.name, tp.num, t.missing(t.cur[i].seen, tp.want, tp.num))
		}
	}
	for i, tp := range t.ports {
		c, p := &t.cur[i], &t.prev[i]
		s := control.PortSample{
			TxBytes:     delta(c.tx, p.tx),
			MarkedBytes: delta(c.marked, p.marked),
			QueueBytes:  -1,
			EnqDepthMax: -1,
			FlowStarts:  delta(c.starts, p.starts),
		}
		for b := range s.EnqHist {
			s.EnqHist[b] = delta(c.hist[b], p.hist[b])
		}
		dst[tp.port] = s
		if tp.host >= 0 {
			dst[tp.host] = control.PortSample{TxBytes: delta(c.rx, p.rx), QueueBytes: -1, EnqDepthMax: -1}
		}
	}
	t.prev, t.cur = t.cur, t.prev
	return nil
}

func (t *SwitchTelemetry) missing(seen, want uint32, num int64) string {
	for k, n := range counterNames {
		if want&^seen&(1<<k) != 0 {
			return fmt.Sprintf("no value of %s[%d]", n, num)
		}
	}
	for b := range int64(control.DepthBuckets) {
		if want&^seen&(1<<(kindEnqDepth+b)) != 0 {
			return fmt.Sprintf("no value of %s[%d]", p4src.CounterEnqDepth, num*control.DepthBuckets+b)
		}
	}
	return "complete"
}

// delta is the growth of a counter from prev to cur. BMv2's counters are
// 64-bit and start at zero when a pipeline is pushed; a value below the
// previous one means they restarted, so the growth is the value itself. (A
// true 64-bit wrap cannot be told from a restart, and takes centuries at
// BMv2's rates.)
func delta(cur, prev int64) int64 {
	if uint64(cur) >= uint64(prev) {
		return int64(uint64(cur) - uint64(prev))
	}
	return cur
}
