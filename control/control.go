package control

import (
	"fmt"
	"math"

	"graphcc/topo"
)

// KB is the unit of ECN thresholds in HPCC's configuration files: 1000 bytes.
const KB = 1000

// ECN is the RED-style marking setting of one egress port. A packet leaving
// the port is marked with probability 0 when the bytes still queued behind it,
// q, are at most KMin; PMax*(q-KMin)/(KMax-KMin) when KMin < q <= KMax; and 1
// when q > KMax.
type ECN struct {
	KMin int64   // bytes
	KMax int64   // bytes
	PMax float64 // marking probability at KMax, in [0, 1]
}

// Validate reports whether e is a usable setting.
func (e ECN) Validate() error {
	switch {
	case e.KMin < 0:
		return fmt.Errorf("ecn: kmin %d bytes is negative", e.KMin)
	case e.KMax < e.KMin:
		return fmt.Errorf("ecn: kmax %d bytes is below kmin %d bytes", e.KMax, e.KMin)
	case !(e.PMax >= 0 && e.PMax <= 1): // also rejects NaN
		return fmt.Errorf("ecn: pmax %v is outside [0, 1]", e.PMax)
	}
	return nil
}

// Prob returns the marking probability for a packet that leaves q bytes
// queued behind it.
func (e ECN) Prob(q int64) float64 {
	switch {
	case q > e.KMax:
		return 1
	case q > e.KMin:
		return e.PMax * float64(q-e.KMin) / float64(e.KMax-e.KMin)
	}
	return 0
}

// String formats e as HPCC's configuration does: thresholds in KB.
func (e ECN) String() string {
	return fmt.Sprintf("kmin=%gKB kmax=%gKB pmax=%g", float64(e.KMin)/KB, float64(e.KMax)/KB, e.PMax)
}

// Alibaba returns the static DCQCN thresholds of Alibaba's production fabric
// (the HPCC defaults), scaled by port rate: kmin = 100 KB, kmax = 400 KB per
// 25 Gbps, pmax = 0.2.
func Alibaba(rate int64) ECN {
	scale := float64(rate) / float64(RefRate)
	return ECN{
		KMin: int64(math.Round(100 * KB * scale)),
		KMax: int64(math.Round(400 * KB * scale)),
		PMax: 0.2,
	}
}

// PortSample is the telemetry of one egress port over one control interval.
type PortSample struct {
	// TxBytes counts the bytes that left the port in the interval: in the
	// simulator those whose serialization began (PFC frames included), on
	// the testbed those its egress counter saw.
	TxBytes     int64
	MarkedBytes int64     // of those, bytes of packets marked CE at this port
	QueueBytes  int64     // bytes queued at the end of the interval (-1 where the fabric cannot tell)
	EnqDepthMax int64     // largest queued bytes a packet met on arrival in the interval (-1 where the fabric cannot tell)
	EnqHist     DepthHist // the queue depth, in packets, each data packet enqueued in the interval met on arrival
	// FlowStarts counts the data packets enqueued in the interval that
	// start a queue pair (IsFlowStart: BTH PSN 0), among those EnqHist
	// counts. Like EnqHist it is counted at switch egress ports only; a
	// host's NIC port reports 0 in both fabrics.
	FlowStarts int64
	// LinkDown reports that the port's link was down at the end of the
	// interval: in the simulator a link of replay.Config.LinkEvents that
	// has failed and not come back. The testbed runs no link events and
	// reports false.
	LinkDown bool
}

// EnqPackets returns the data packets enqueued at the port in the interval.
func (s *PortSample) EnqPackets() int64 { return s.EnqHist.Count() }

// QueueFeature is the queue length the policies see, in bytes: the mean
// depth that data packets (the ECN-capable ones; not ACKs, NACKs or CNPs)
// met at enqueue during the interval, measured in packets on the DepthHist
// buckets and converted at QueuePacketBytes per packet, or 0 if no data
// packet arrived (see DepthHist.Mean). It is the one definition both
// fabrics compute identically: the simulator fills the histogram with each
// data packet's depth, the testbed reads it from per-port counters that the
// P4 pipeline increments at enqueue for ECN-capable packets (BMv2's
// enq_qdepth of the data queue, in packets). The depth counts every packet
// queued ahead: in the simulator ACKs share the data queue by default, as in
// HPCC's switches, and have a queue of their own with
// replay.Params.AckHighPriority; on BMv2 they always have one
// (lab.PriorityQueues, in controller/lab).
func (s *PortSample) QueueFeature() float64 {
	return s.EnqHist.Mean() * QueuePacketBytes
}

// Utilization returns the fraction of the port's rate used in an interval of
// dt picoseconds.
func (s PortSample) Utilization(rate, dt int64) float64 {
	return float64(s.TxBytes) * 8 * float64(topo.Second) / (float64(dt) * float64(rate))
}

// MarkingRate returns the marked bytes as a fraction of the port's capacity in
// an interval of dt picoseconds.
func (s PortSample) MarkingRate(rate, dt int64) float64 {
	return float64(s.MarkedBytes) * 8 * float64(topo.Second) / (float64(dt) * float64(rate))
}

// Telemetry is what a fabric reports at the end of one control interval.
type Telemetry struct {
	Now      int64        // end of the interval, picoseconds of fabric time
	Interval int64        // length of the interval, picoseconds
	Ports    []PortSample // indexed by topo.PortID
}

// A Policy chooses ECN settings from telemetry. Decide is called once per
// control interval with the current settings in ecn (indexed by topo.PortID);
// it overwrites the entries it wants to change. A Policy is used by one
// fabric at a time; Decide must not keep t or ecn after it returns.
type Policy interface {
	Decide(t *Telemetry, ecn []ECN)
}

// Static is the policy that never changes a setting: the fabric keeps the
// settings it was started with (Alibaba's thresholds by default).
type Static struct{}

// Decide leaves every setting as it is.
func (Static) Decide(*Telemetry, []ECN) {}

// StaticSettings returns Alibaba's thresholds for every port of f.
func StaticSettings(f *topo.Fabric) []ECN {
	ecn := make([]ECN, len(f.Ports))
	for i, p := range f.Ports {
		ecn[i] = Alibaba(p.Rate)
	}
	return ecn
}
