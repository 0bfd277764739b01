package control

import (
	"fmt"
	"io"

	"graphcc/topo"
)

// TraceHeader is the header line of the telemetry CSV that Loop writes, one
// row per port per control step, the same in both fabrics. A row describes
// the interval that ended at time_us: the port's counters over it, and the
// ECN settings in force during it (for a host port, the settings it would
// have; hosts do not mark). The columns:
//
//	time_us              end of the interval, µs of fabric time
//	port, src, dst       the port (topo.PortID) and its link's ends
//	rate_gbps            the port's rate
//	tx_bytes             PortSample.TxBytes
//	marked_bytes         PortSample.MarkedBytes
//	queue_bytes          PortSample.QueueBytes: bytes queued at the end of
//	                     the interval (-1 on the testbed, which cannot tell)
//	enq_packets          data packets enqueued in the interval
//	queue_feature_bytes  PortSample.QueueFeature: the queue the policies see
//	enq_depth_max        PortSample.EnqDepthMax (-1 on the testbed)
//	kmin, kmax, pmax     the setting in force (bytes, bytes, probability)
//	flow_starts          PortSample.FlowStarts: data packets enqueued that
//	                     start a queue pair (PSN 0)
//	enq_queued_packets   PortSample.EnqQueued: data packets enqueued that met
//	                     more than EmptyDepth packets ahead of them
//	queue_p90_bytes      PortSample.QueueHigh: the HighDepthPercent-th
//	                     percentile of the enqueue depth, bytes
//
// The last three were added after the others (issue 23); a reader that
// knows only the first fourteen columns can ignore the rest.
const TraceHeader = "time_us,port,src,dst,rate_gbps,tx_bytes,marked_bytes,queue_bytes,enq_packets,queue_feature_bytes,enq_depth_max,kmin,kmax,pmax,flow_starts,enq_queued_packets,queue_p90_bytes"

// WriteTraceRows writes one TraceHeader row per port of f: the telemetry
// samples of the interval ending at now (ps) and the settings ecn in force
// during it, both indexed by topo.PortID. Write errors are left to the
// caller's buffered writer to report at its flush.
func WriteTraceRows(w io.Writer, f *topo.Fabric, now int64, samples []PortSample, ecn []ECN) {
	for i := range samples {
		ps, pt, e := &samples[i], &f.Ports[i], ecn[i]
		fmt.Fprintf(w, "%.1f,%d,%s,%s,%g,%d,%d,%d,%d,%.1f,%d,%d,%d,%g,%d,%d,%.0f\n",
			float64(now)/float64(topo.Microsecond), i, f.Nodes[pt.Src].Name, f.Nodes[pt.Dst].Name,
			float64(pt.Rate)/float64(topo.Gbps), ps.TxBytes, ps.MarkedBytes, ps.QueueBytes,
			ps.EnqPackets(), ps.QueueFeature(), ps.EnqDepthMax, e.KMin, e.KMax, e.PMax,
			ps.FlowStarts, ps.EnqQueued(), ps.QueueHigh())
	}
}
