package metrics

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"

	"graphcc/control"
	"graphcc/trace"
)

// Stats summarizes the FCT slowdowns of a set of flows.
type Stats struct {
	// MaxBytes is the upper bound of a flow-size bin (math.MaxInt64 for an
	// open last bin, null in JSON, where 2^63-1 would not survive a
	// float64); 0, and omitted from JSON, for stats not split by size.
	MaxBytes int64   `json:"max_bytes,omitempty"`
	Count    int     `json:"count"`
	Mean     float64 `json:"mean"`
	P50      float64 `json:"p50"`
	P95      float64 `json:"p95"`
	P99      float64 `json:"p99"`
}

// statsJSON is Stats without its methods, for MarshalJSON and
// UnmarshalJSON.
type statsJSON Stats

// MarshalJSON writes s with an open bin's bound, math.MaxInt64, as null.
func (s Stats) MarshalJSON() ([]byte, error) {
	v := struct {
		statsJSON
		MaxBytes json.RawMessage `json:"max_bytes,omitempty"` // shadows statsJSON's
	}{statsJSON: statsJSON(s)}
	switch s.MaxBytes {
	case 0:
	case math.MaxInt64:
		v.MaxBytes = json.RawMessage("null")
	default:
		v.MaxBytes = strconv.AppendInt(nil, s.MaxBytes, 10)
	}
	return json.Marshal(v)
}

// UnmarshalJSON reads what MarshalJSON writes: a null max_bytes is an open
// bin (math.MaxInt64), an absent one 0.
func (s *Stats) UnmarshalJSON(b []byte) error {
	v := struct {
		*statsJSON
		MaxBytes json.RawMessage `json:"max_bytes"`
	}{statsJSON: (*statsJSON)(s)}
	if err := json.Unmarshal(b, &v); err != nil {
		return err
	}
	switch {
	case v.MaxBytes == nil:
		s.MaxBytes = 0
	case string(v.MaxBytes) == "null":
		s.MaxBytes = math.MaxInt64
	default:
		return json.Unmarshal(v.MaxBytes, &s.MaxBytes)
	}
	return nil
}

// percentile is HPCC's get_pctl (analysis/fct_analysis.py): the element at
// index int(n*q) of the sorted values, clamped to the last one.
func percentile(sorted []float64, q float64) float64 {
	if len(sorted) == 0 {
		return 0
	}
	return sorted[PercentileIndex(len(sorted), q)]
}

// PercentileIndex is the index of the q-th percentile among n > 0 sorted
// values, as HPCC's get_pctl takes it: int(n*q), clamped to the values.
func PercentileIndex(n int, q float64) int {
	return max(0, min(int(float64(n)*q), n-1))
}

// MeanP99 returns the mean of v, summed in v's order, and its 99th
// percentile taken as PercentileIndex takes it; 0, 0 for no values. v is
// not changed.
func MeanP99[T int64 | float64](v []T) (mean, p99 float64) {
	if len(v) == 0 {
		return 0, 0
	}
	var tot float64
	for _, x := range v {
		tot += float64(x)
	}
	sorted := slices.Clone(v)
	slices.Sort(sorted)
	return tot / float64(len(v)), float64(sorted[PercentileIndex(len(v), 0.99)])
}

// statsOf returns the count, mean and HPCC-style percentiles of v, which it
// sorts in place.
func statsOf(v []float64) Stats {
	if len(v) == 0 {
		return Stats{}
	}
	slices.Sort(v)
	sum := 0.0
	for _, x := range v {
		sum += x
	}
	return Stats{
		Count: len(v),
		Mean:  sum / float64(len(v)),
		P50:   percentile(v, 0.5),
		P95:   percentile(v, 0.95),
		P99:   percentile(v, 0.99),
	}
}

// SlowdownStats summarizes the slowdowns (FCT.Slowdown) of the records that
// keep accepts (all of them if keep is nil). Percentiles are taken as HPCC's
// fct_analysis.py does: sorted values, index int(n*q), clamped to n-1.
func SlowdownStats(recs []trace.FCT, keep func(trace.FCT) bool) Stats {
	var v []float64
	for _, r := range recs {
		if keep == nil || keep(r) {
			v = append(v, r.Slowdown())
		}
	}
	return statsOf(v)
}

// DefaultBins are the flow-size bins of the GraphCC evaluation, by upper
// bound in bytes: <=10 KB, 10-100 KB, 100 KB-1 MB, >1 MB.
func DefaultBins() []int64 {
	return []int64{10_000, 100_000, 1_000_000, math.MaxInt64}
}

// SlowdownBySize returns one Stats per bin, bins being increasing upper
// bounds in bytes: bin i holds the flows with size in (bins[i-1], bins[i]]
// (bin 0: size <= bins[0]), and its MaxBytes is bins[i]. Flows larger than
// the last bound are left out; end with math.MaxInt64 to keep them all.
// HPCC's fct_analysis.py bins by flow-size percentiles instead; fixed byte
// bins compare across runs and workloads.
func SlowdownBySize(recs []trace.FCT, bins []int64) []Stats {
	out := make([]Stats, len(bins))
	for i, hi := range bins {
		lo := int64(math.MinInt64)
		if i > 0 {
			lo = bins[i-1]
		}
		out[i] = SlowdownStats(recs, func(r trace.FCT) bool { return r.Size > lo && r.Size <= hi })
		out[i].MaxBytes = hi
	}
	return out
}

// MeanThroughputGbps is the mean over flows of size*8/FCT, in Gbps. Records
// with a non-positive FCT are left out.
func MeanThroughputGbps(recs []trace.FCT) float64 {
	sum, n := 0.0, 0
	for _, r := range recs {
		if r.FCT <= 0 {
			continue
		}
		sum += r.ThroughputGbps()
		n++
	}
	if n == 0 {
		return 0
	}
	return sum / float64(n)
}

// Summary is the result of one run: FCT slowdowns, throughput and the
// fabric counters. The simulator fills every field; the testbed
// (controller.TestbedSummary, which embeds it) fills the fields of the
// keys it measures and leaves the others out of its JSON. SummaryKeys
// defines each JSON key once: what it means and which fabrics measure it.
type Summary struct {
	Flows              int     `json:"flows"`                // flows in the trace
	Completed          int     `json:"completed"`            // flows that finished
	Slowdown           Stats   `json:"slowdown"`             // all completed flows
	SlowdownBySize     []Stats `json:"slowdown_by_size"`     // per flow-size bin
	SlowdownIncast     Stats   `json:"slowdown_incast"`      // DPort == DPortIncast
	SlowdownBackground Stats   `json:"slowdown_background"`  // every other flow
	ThroughputGbpsMean float64 `json:"throughput_gbps_mean"` // see MeanThroughputGbps
	QueueBytesMean     float64 `json:"queue_bytes_mean"`     // switch egress queue samples
	QueueBytesP99      float64 `json:"queue_bytes_p99"`
	QueueSeconds       float64 `json:"queue_seconds"` // the fabric time they span (replay.Config.QueueUntil)
	// QueueFeatureMean and QueueFeatureP99 are the queue the policies see
	// (control.PortSample.QueueFeature: the mean depth data packets met at
	// enqueue over an interval), over every switch port at every control
	// step of the same span. Both fabrics measure these.
	QueueFeatureMean float64 `json:"queue_feature_bytes_mean"`
	QueueFeatureP99  float64 `json:"queue_feature_bytes_p99"`
	PFCPauses        int64   `json:"pfc_pauses"`
	ECNMarkedPackets int64   `json:"ecn_marked_packets"`
	Drops            int64   `json:"drops"`
	Events           int64   `json:"events"`
	SimSeconds       float64 `json:"sim_seconds"`
	WallSeconds      float64 `json:"wall_seconds"`
	PeakRSSBytes     int64   `json:"peak_rss_bytes"`
	// ECNSettings are the settings a control policy chose (none without
	// one): per setting, at thresholds per 25 Gbps of port rate, the agent
	// port-steps at it, the most used first. A policy that adapts spreads
	// its port-steps over several.
	ECNSettings []control.SettingUse `json:"ecn_settings,omitempty"`
	// Phases, for a phased trace (and only then: absent from JSON
	// otherwise), are the slowdowns of its flows by the phase they start
	// in (SlowdownByPhase), in phase order. Summarize leaves them nil:
	// who knows the phases fills them (graphcc sim --scenario, eval).
	Phases []PhaseStats `json:"slowdown_by_phase,omitempty"`
	// AgentStats, with per-switch agents exchanging messages as packets
	// (and only then), are their counts; their keys join the summary's.
	*AgentStats
}

// Summarize fills the FCT-derived fields of a Summary from the completed
// records of a trace of flows flows: slowdowns overall, by size bin (nil
// bins means DefaultBins), of incast flows and of background flows (all
// others; HPCC's analysis takes dport 100 only), and the mean throughput.
// The simulator fills the rest.
func Summarize(flows int, recs []trace.FCT, bins []int64) Summary {
	if bins == nil {
		bins = DefaultBins()
	}
	return Summary{
		Flows:              flows,
		Completed:          len(recs),
		Slowdown:           SlowdownStats(recs, nil),
		SlowdownBySize:     SlowdownBySize(recs, bins),
		SlowdownIncast:     SlowdownStats(recs, func(r trace.FCT) bool { return r.DPort == trace.DPortIncast }),
		SlowdownBackground: SlowdownStats(recs, func(r trace.FCT) bool { return r.DPort != trace.DPortIncast }),
		ThroughputGbpsMean: MeanThroughputGbps(recs),
	}
}

// formatBytes writes a byte count with a decimal unit when it divides
// evenly: 10000 -> "10KB", 1000000 -> "1MB", 1500 -> "1500B".
func formatBytes(b int64) string {
	for _, u := range []struct {
		div  int64
		name string
	}{{1_000_000_000_000, "TB"}, {1_000_000_000, "GB"}, {1_000_000, "MB"}, {1_000, "KB"}} {
		if b != 0 && b%u.div == 0 {
			return strconv.FormatInt(b/u.div, 10) + u.name
		}
	}
	return strconv.FormatInt(b, 10) + "B"
}

// binLabels names size bins by their bounds: "<=10KB", "10KB-100KB", and
// ">1MB" for a last bin bounded by math.MaxInt64.
func binLabels(s []Stats) []string {
	labels := make([]string, len(s))
	for i, b := range s {
		switch {
		case i == 0:
			labels[i] = "<=" + formatBytes(b.MaxBytes)
		case b.MaxBytes == math.MaxInt64:
			labels[i] = ">" + formatBytes(s[i-1].MaxBytes)
		default:
			labels[i] = formatBytes(s[i-1].MaxBytes) + "-" + formatBytes(b.MaxBytes)
		}
	}
	return labels
}

// WriteTable writes s as aligned, human-readable text tables: the
// slowdowns overall, per size bin (a bin without flows shows "–"), of
// incast and of background flows, and of a phased trace's flows by the
// phase they start in ("phase from 10 ms"); the queues in KB (1000 B, the unit of
// the ECN thresholds), the instantaneous one the simulator samples and the
// queue feature the policies see; then the counters. It is the
// simulator's table: WriteTableOf(w, Simulator).
func (s Summary) WriteTable(w io.Writer) error { return s.WriteTableOf(w, Simulator) }

// WriteTableOf writes s as WriteTable does with the rows of the keys f
// measures (Fabric.Measures) alone: on the testbed without the
// instantaneous queue, PFC pauses, drops and events.
func (s Summary) WriteTableOf(w io.Writer, f Fabric) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	row := func(cells ...string) { fmt.Fprintln(tw, strings.Join(cells, "\t")+"\t") }
	stat := func(label string, st Stats) {
		if st.Count == 0 {
			row(label, "0", "–", "–", "–", "–")
			return
		}
		row(label, strconv.Itoa(st.Count), ff(st.Mean), ff(st.P50), ff(st.P95), ff(st.P99))
	}
	row("slowdown", "flows", "mean", "p50", "p95", "p99")
	stat("all", s.Slowdown)
	for i, label := range binLabels(s.SlowdownBySize) {
		stat(label, s.SlowdownBySize[i])
	}
	stat("incast", s.SlowdownIncast)
	stat("background", s.SlowdownBackground)
	for _, ph := range s.Phases {
		stat("phase from "+strconv.FormatFloat(ph.StartMs, 'f', -1, 64)+" ms", ph.Slowdown)
	}
	fmt.Fprintln(tw)
	row("queue (KB = 1000 B)", "mean", "p99")
	if f.Measures("queue_bytes_mean") {
		row("instantaneous (simulator)", ff(s.QueueBytesMean/control.KB), ff(s.QueueBytesP99/control.KB))
	}
	row("feature (policies' input)", ff(s.QueueFeatureMean/control.KB), ff(s.QueueFeatureP99/control.KB))
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintln(w)
	if err := s.writeCounters(w, f); err != nil || s.AgentStats == nil {
		return err
	}
	return s.AgentStats.writeTable(w)
}

// writeCounters writes the counters of s that f measures as key-value
// lines.
func (s Summary) writeCounters(w io.Writer, f Fabric) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	kv := func(key, k, v string) {
		if f.Measures(key) {
			fmt.Fprintf(tw, "%s\t%s\n", k, v)
		}
	}
	kv("flows", "flows", fmt.Sprintf("%d (%d completed)", s.Flows, s.Completed))
	kv("throughput_gbps_mean", "throughput (mean per flow)", ff(s.ThroughputGbpsMean)+" Gbps")
	kv("queue_seconds", "queues sampled over", ff(s.QueueSeconds)+" s")
	kv("pfc_pauses", "pfc pauses", strconv.FormatInt(s.PFCPauses, 10))
	kv("ecn_marked_packets", "ecn marked packets", strconv.FormatInt(s.ECNMarkedPackets, 10))
	kv("drops", "drops", strconv.FormatInt(s.Drops, 10))
	kv("events", "events", strconv.FormatInt(s.Events, 10))
	span := "simulated time"
	if f == Testbed {
		span = "fabric time"
	}
	kv("sim_seconds", span, ff(s.SimSeconds)+" s")
	kv("wall_seconds", "wall time", ff(s.WallSeconds)+" s")
	kv("peak_rss_bytes", "peak rss", fmt.Sprintf("%.1f MiB", float64(s.PeakRSSBytes)/(1<<20)))
	return tw.Flush()
}

// ff formats a float for tables: 3 decimals.
func ff(v float64) string { return strconv.FormatFloat(v, 'f', 3, 64) }

// PeakRSS returns the peak resident set size of this process in bytes
// (VmHWM of /proc/self/status), or 0 where that is unavailable.
func PeakRSS() int64 {
	data, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	return parseVmHWM(data)
}

// parseVmHWM extracts VmHWM from the text of /proc/self/status, in bytes.
func parseVmHWM(status []byte) int64 {
	for line := range strings.Lines(string(status)) {
		rest, ok := strings.CutPrefix(line, "VmHWM:")
		if !ok {
			continue
		}
		f := strings.Fields(rest)
		if len(f) != 2 || f[1] != "kB" {
			return 0
		}
		kb, err := strconv.ParseInt(f[0], 10, 64)
		if err != nil || kb < 0 {
			return 0
		}
		return kb * 1024
	}
	return 0
}

// SmallFlowBytes bounds the "small flows" of the reports: flows of at most
// 100 KB.
const SmallFlowBytes = 100_000

// Normalize returns v/ref, or NaN when ref is not a positive number (a bin
// without flows). Normalize(x, x) is exactly 1 for every positive x.
func Normalize(v, ref float64) float64 {
	if !(ref > 0) || math.IsInf(ref, 0) {
		return math.NaN()
	}
	return v / ref
}

// FigureBins are the flow-size bins of the per-scenario figures, finer than
// DefaultBins: half decades from 1 KB, by upper bound in bytes: <=1 KB,
// 1-3 KB, 3-10 KB, 10-30 KB, 30-100 KB, 100-300 KB, 300 KB-1 MB, 1-3 MB and
// >3 MB (FB_Hadoop's largest flows are 10 MB). Every bound of DefaultBins
// is a bound here too.
func FigureBins() []int64 {
	return []int64{1_000, 3_000, 10_000, 30_000, 100_000, 300_000, 1_000_000, 3_000_000, math.MaxInt64}
}
