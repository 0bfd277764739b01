package report

import (
	"io"
	"math"

	"graphcc/experiment"
	"graphcc/internal/fileio"
	"graphcc/metrics"
	"graphcc/topo"
)

// The JSON form of a report. Summaries keep the simulator's keys
// (see Summary).
type (
	evalJSON struct {
		Reference string   `json:"reference"`
		Policies  []string `json:"policies"`
		Seeds     []uint64 `json:"seeds"`
		Bins      []*int64 `json:"bins_max_bytes"` // null: the open last bin
		Rewards   []string `json:"rewards,omitempty"`
		CILevel   *float64 `json:"ci_level,omitempty"` // absent without intervals
		// per policy; absent with a single scenario
		GeoMean   []*float64  `json:"geomean_mean_slowdown_vs_reference,omitempty"`
		GeoMeanCI [][]float64 `json:"geomean_mean_slowdown_vs_reference_ci,omitempty"`
		// absent without yardsticks
		Yardsticks   []string        `json:"yardsticks,omitempty"`
		VsYardsticks []yardstickJSON `json:"vs_yardsticks,omitempty"`
		// which default yardstick, or why none; absent when they were given
		YardstickNote string         `json:"yardstick_note,omitempty"`
		Scenarios     []scenarioJSON `json:"scenarios"`
	}
	scenarioJSON struct {
		Name        string       `json:"name"`
		Description string       `json:"description"`
		Summary     string       `json:"summary"`
		Clos        *closJSON    `json:"clos,omitempty"`     // absent with a topology
		Topology    *topoJSON    `json:"topology,omitempty"` // instead of the Clos
		Fail        []string     `json:"fail"`
		FailRandom  int          `json:"fail_random"`
		Workload    string       `json:"workload"`
		Load        float64      `json:"load"`
		DurationMs  float64      `json:"duration_ms"`
		Incast      incastJSON   `json:"incast"`
		Flows       []int        `json:"flows_per_seed"`
		FailedLinks [][]string   `json:"failed_links_per_seed"`
		SizeCDF     []cdfJSON    `json:"flow_size_cdf"`
		Phases      []phaseJSON  `json:"phases,omitempty"` // phased traffic only
		Results     []policyJSON `json:"policies"`
	}
	phaseJSON struct {
		DurationMs float64    `json:"duration_ms"`
		Workload   string     `json:"workload"`
		Load       float64    `json:"load"`
		Incast     incastJSON `json:"incast"`
	}
	closJSON struct {
		Leaves       int     `json:"leaves"`
		Spines       int     `json:"spines"`
		HostsPerLeaf int     `json:"hosts_per_leaf"`
		HostGbps     float64 `json:"host_gbps"`
		FabricGbps   float64 `json:"fabric_gbps"`
		LinkDelayUs  float64 `json:"link_delay_us"`
		BufferBytes  int64   `json:"buffer_bytes"`
	}
	topoJSON struct {
		Name     string `json:"name"`
		Hosts    int    `json:"hosts"`
		Switches int    `json:"switches"`
		Links    int    `json:"links"`
	}
	cdfJSON struct {
		Bytes   float64 `json:"bytes"`
		Percent float64 `json:"percent"`
	}
	incastJSON struct {
		PeriodUs float64 `json:"period_us"` // 0: no incasts
		FanIn    int     `json:"fanin"`
		Size     int64   `json:"size_bytes"`
	}
	policyJSON struct {
		Policy                 string            `json:"policy"`
		Summary                metrics.Summary   `json:"summary"`
		NormalizedMeanSlowdown *float64          `json:"mean_slowdown_vs_reference"`    // null when undefined
		MeanVsRefCI            []float64         `json:"mean_slowdown_vs_reference_ci"` // [lo, hi]; null without an interval
		SmallP99               float64           `json:"slowdown_p99_small"`            // flows <= 100 KB
		SmallP99VsRef          *float64          `json:"slowdown_p99_small_vs_reference"`
		SmallP99VsRefCI        []float64         `json:"slowdown_p99_small_vs_reference_ci"`
		ThroughputVsRef        *float64          `json:"throughput_vs_reference"`
		ThroughputVsRefCI      []float64         `json:"throughput_vs_reference_ci"`
		QueueVsRef             *float64          `json:"queue_mean_vs_reference"`
		QueueVsRefCI           []float64         `json:"queue_mean_vs_reference_ci"`
		SlowdownByBin          []metrics.Stats   `json:"slowdown_by_figure_bin"`
		BinVsRef               []binJSON         `json:"slowdown_by_figure_bin_vs_reference"`
		PerSeed                []metrics.Summary `json:"per_seed"`
		// per experiment.Report.Rewards; null where no interval was scored
		Rewards        []*float64   `json:"rewards,omitempty"`
		PerSeedRewards [][]*float64 `json:"per_seed_rewards,omitempty"`
		// per experiment.Report.Yardsticks; absent without yardsticks
		VsYardsticks []yardRatioJSON `json:"vs_yardsticks,omitempty"`
		// per phase; absent on a scenario without phases
		Phases []phaseRatioJSON `json:"slowdown_by_phase_vs_reference,omitempty"`
	}
)

// binJSON is experiment.BinRatios in JSON: each ratio (null where undefined) and its
// interval ([lo, hi], null without one).
type binJSON struct {
	P50   *float64  `json:"p50"`
	P50CI []float64 `json:"p50_ci"`
	P95   *float64  `json:"p95"`
	P95CI []float64 `json:"p95_ci"`
	P99   *float64  `json:"p99"`
	P99CI []float64 `json:"p99_ci"`
}

// ratioJSON returns r's value (nil if NaN) and interval (nil without one).
func ratioJSON(r metrics.Ratio) (*float64, []float64) {
	var ci []float64
	if r.HasInterval() {
		ci = []float64{r.Lo, r.Hi}
	}
	return fileio.JSONFloats([]float64{r.Value})[0], ci
}

// WriteJSON writes rep as indented JSON: the reference, policies,
// seeds, figure bins and level of the intervals ("ci_level", absent without
// intervals), with several scenarios the geometric means of GeoMeanVsRef
// and their intervals (in the order of "policies"), then per scenario its
// metadata (name, description, Clos or topology, failures, workload, load,
// duration, incasts, flows per seed, the flow-size CDF as {Bytes, Percent}
// points) and per policy the merged Summary under "summary" with the
// simulator's keys, the mean slowdown divided by the reference's and that
// ratio's interval ("mean_slowdown_vs_reference_ci": [lo, hi], null without
// one), the p99 slowdown of flows of at most 100 KB, that divided by the
// reference's and its interval, the mean throughput and mean queue divided
// by the reference's ("throughput_vs_reference", "queue_mean_vs_reference")
// with their intervals, the slowdown per figure bin and its median, p95 and
// p99 divided by the reference's with their intervals
// ("slowdown_by_figure_bin_vs_reference"), the per-seed summaries and, with
// rewards, the scores under each of them ("rewards", in the order of the
// top-level "rewards"; null where no interval was scored) and per seed. On
// a phased scenario, whose summaries carry the phases' statistics
// ("slowdown_by_phase"), each policy has per phase its mean slowdown
// divided by the reference's with the interval, and the phase's shares of
// the policy's flows and slowdown sum ("slowdown_by_phase_vs_reference").
// With yardsticks (absent without): their names ("yardsticks"), per
// yardstick and policy the geometric means of the policy's ratios to it
// over the scenarios, its worst scenario and the scenarios where its mean
// slowdown is above the yardstick's ("vs_yardsticks"), and per scenario
// and policy its ratios to each ("vs_yardsticks"); docs/formats.md lists
// the keys.
func WriteJSON(w io.Writer, rep *experiment.Report) error { return view{rep}.writeJSON(w) }

// writeJSON is WriteJSON of r.
func (r view) writeJSON(w io.Writer) error {
	out := evalJSON{Reference: r.Reference, Policies: r.Policies, Seeds: r.Seeds, Bins: binBounds(r.Bins), Rewards: r.Rewards,
		Yardsticks: r.Yardsticks, VsYardsticks: r.yardsticksJSON(), YardstickNote: r.YardstickNote}
	if len(r.Seeds) >= metrics.MinIntervalSeeds {
		l := metrics.CILevel
		out.CILevel = &l
	}
	for _, g := range r.GeoMeanVsRef {
		v, ci := ratioJSON(g)
		out.GeoMean, out.GeoMeanCI = append(out.GeoMean, v), append(out.GeoMeanCI, ci)
	}
	for si, sr := range r.Scenarios {
		sj := newScenarioJSON(sr)
		for pi, pr := range sr.Policies {
			pj := policyJSON{Policy: pr.Policy, Summary: pr.Summary, SmallP99: pr.SmallP99,
				SlowdownByBin: pr.SlowdownByBin, PerSeed: pr.PerSeed, Rewards: fileio.JSONFloats(pr.Rewards),
				VsYardsticks: yardRatiosJSON(r.Yardsticks, pr), Phases: phaseRatiosJSON(pr)}
			for _, v := range pr.PerSeedRewards {
				pj.PerSeedRewards = append(pj.PerSeedRewards, fileio.JSONFloats(v))
			}
			if v := r.NormalizedMeanSlowdown(si, pi); !math.IsNaN(v) {
				pj.NormalizedMeanSlowdown = &v
			}
			_, pj.MeanVsRefCI = ratioJSON(pr.MeanVsRef)
			pj.SmallP99VsRef, pj.SmallP99VsRefCI = ratioJSON(pr.SmallP99VsRef)
			pj.ThroughputVsRef, pj.ThroughputVsRefCI = ratioJSON(pr.ThroughputVsRef)
			pj.QueueVsRef, pj.QueueVsRefCI = ratioJSON(pr.QueueVsRef)
			for _, b := range pr.BinVsRef {
				var bj binJSON
				bj.P50, bj.P50CI = ratioJSON(b.P50)
				bj.P95, bj.P95CI = ratioJSON(b.P95)
				bj.P99, bj.P99CI = ratioJSON(b.P99)
				pj.BinVsRef = append(pj.BinVsRef, bj)
			}
			sj.Results = append(sj.Results, pj)
		}
		out.Scenarios = append(out.Scenarios, sj)
	}
	return fileio.WriteJSON(w, out)
}

// binBounds returns bins for JSON: an open bound, math.MaxInt64, is nil
// (null), which a float64 reader such as jq or JavaScript keeps exact.
func binBounds(bins []int64) []*int64 {
	out := make([]*int64, len(bins))
	for i, b := range bins {
		if b != math.MaxInt64 {
			out[i] = &bins[i]
		}
	}
	return out
}

// newScenarioJSON is the description of a scenario's result in WriteJSON,
// without its policies. For phased traffic the load is the phases' mean
// (Scenario.MeanLoad), the incast none, the workload and its CDF the mix
// of the phases' (Scenario.SizeCDF), and phases lists them.
func newScenarioJSON(sr experiment.ScenarioResult) scenarioJSON {
	s := sr.Scenario
	sj := scenarioJSON{
		Name: s.Name, Description: s.Description, Summary: s.Describe(),
		Fail: append([]string{}, s.Fail...), FailRandom: s.FailRandom,
		Load: s.MeanLoad(), DurationMs: float64(s.Gen.Duration) / float64(topo.Millisecond),
		Incast: newIncastJSON(s.Gen.Incast.Period, s.Gen.Incast.FanIn, s.Gen.Incast.Size),
		Flows:  sr.Flows, FailedLinks: sr.FailedLinks,
	}
	if t := s.Topology; t != nil {
		sj.Topology = &topoJSON{Name: s.TopologyName, Hosts: len(t.Hosts()), Switches: len(t.Nodes) - len(t.Hosts()), Links: len(t.Links)}
	} else {
		sj.Clos = &closJSON{
			Leaves: s.Clos.Leaves, Spines: s.Clos.Spines, HostsPerLeaf: s.Clos.HostsPerLeaf,
			HostGbps: float64(s.Clos.HostRate) / float64(topo.Gbps), FabricGbps: float64(s.Clos.FabricRate) / float64(topo.Gbps),
			LinkDelayUs: float64(s.Clos.LinkDelay) / float64(topo.Microsecond), BufferBytes: s.Clos.Buffer,
		}
	}
	if len(s.Gen.Phases) > 0 {
		sj.Incast = incastJSON{}
		for _, p := range s.Gen.Phases {
			sj.Phases = append(sj.Phases, phaseJSON{DurationMs: float64(p.Duration) / float64(topo.Millisecond),
				Workload: p.Workload.Name, Load: p.Load, Incast: newIncastJSON(p.Incast.Period, p.Incast.FanIn, p.Incast.Size)})
		}
	}
	if w := s.SizeCDF(); w != nil {
		sj.Workload = w.Name
		for _, p := range w.Points {
			sj.SizeCDF = append(sj.SizeCDF, cdfJSON(p))
		}
	}
	return sj
}

// newIncastJSON describes incasts (a workload.IncastConfig's fields) in
// WriteJSON.
func newIncastJSON(period int64, fanIn int, size int64) incastJSON {
	return incastJSON{FanIn: fanIn, Size: size, PeriodUs: float64(period) / float64(topo.Microsecond)}
}
