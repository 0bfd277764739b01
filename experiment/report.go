package experiment

import (
	"math"
	"slices"

	"graphcc/metrics"
	"graphcc/scenario"
)

// Report is the result of Evaluate. Scenarios and their Policies are in
// the order of the Config; the report is the same whatever the
// scheduling of the runs, except for the wall_seconds and peak_rss_bytes of
// the summaries, which measure the machine (the Markdown report leaves them
// out).
type Report struct {
	Reference string
	Policies  []string
	Seeds     []uint64
	Bins      []int64 // bounds of PolicyResult.SlowdownByBin (FigureBins)
	// Rewards name the rewards of Config.Rewards, in order.
	Rewards []string
	// ShowRewards is Config.ShowRewards: WriteMarkdown writes the rewards.
	ShowRewards bool
	Scenarios   []ScenarioResult
	// GeoMeanVsRef is, per policy, the geometric mean over the scenarios
	// of its mean slowdown divided by the reference's (over the scenarios
	// where that is defined), nil with a single scenario. Its interval
	// leaves out one seed at a time from every scenario at once, so that
	// scenarios drawn from the same seeds count as the correlated evidence
	// they are.
	GeoMeanVsRef []metrics.Ratio
	// Yardsticks name the policies every policy is also measured against
	// (Config.Yardsticks), in the order of each PolicyResult's
	// VsYardsticks.
	Yardsticks []string
	// YardstickNote is Config.YardstickNote: which default yardstick the
	// report has, or why none ("" when they were given).
	YardstickNote string
	// GeoMeanVsYardsticks holds, per yardstick and then per policy, the
	// geometric means over the scenarios of the policy's VsYardsticks
	// (with a single scenario, its ratios), with intervals as
	// GeoMeanVsRef's; nil without yardsticks.
	GeoMeanVsYardsticks [][]YardstickRatios
}

// ScenarioResult holds every policy's results on one scenario.
type ScenarioResult struct {
	Scenario scenario.Scenario
	// Flows is the number of flows of the trace of each seed.
	Flows []int
	// FailedLinks are the links failed at each seed (Fail and the random
	// ones), by name in link order; nil entries when none failed.
	FailedLinks [][]string
	Policies    []PolicyResult
}

// PolicyResult is one policy on one scenario, over every seed.
type PolicyResult struct {
	Policy string
	// Summary merges the seeds: its slowdown statistics and throughput are
	// those of the FCT records of every seed together, its counters
	// (pfc_pauses, ecn_marked_packets, drops, events) and its sim_seconds
	// and wall_seconds are sums, its queue statistics are means over seeds,
	// and its peak_rss_bytes is the largest.
	Summary metrics.Summary
	// SlowdownByBin are the slowdown statistics per Report.Bins.
	SlowdownByBin []metrics.Stats
	// SmallP99 is the p99 slowdown of the flows of at most SmallFlowBytes.
	SmallP99 float64
	// MeanVsRef is the mean slowdown divided by the reference policy's
	// (NormalizedMeanSlowdown), SmallP99VsRef the same for SmallP99, each
	// with its interval from the variation between seeds (see Ratio).
	MeanVsRef, SmallP99VsRef metrics.Ratio
	// ThroughputVsRef and QueueVsRef are the Summary's ThroughputGbpsMean
	// and QueueBytesMean divided by the reference policy's, with their
	// intervals.
	ThroughputVsRef, QueueVsRef metrics.Ratio
	// BinVsRef are, per figure bin (Report.Bins), the median, p95 and
	// p99 slowdown of SlowdownByBin divided by the reference policy's in
	// the same bin, with their intervals: what the figure plots.
	BinVsRef []BinRatios
	// PhaseVsRef are, on a phased scenario (nil on another), per phase
	// the mean slowdown of the flows that start in it (Summary.Phases)
	// divided by the reference policy's, with their intervals.
	PhaseVsRef []metrics.Ratio
	// meanLOO are MeanVsRef's values leaving out each seed in turn,
	// slowdownLOO the mean slowdown's and smallLOO SmallP99's (nil
	// without intervals; smallLOO also where its tail is too thin).
	meanLOO, slowdownLOO, smallLOO []float64
	// VsYardsticks are the policy's ratios to each policy of
	// Report.Yardsticks, in that order.
	VsYardsticks []YardstickRatios
	// PerSeed are the summaries of the single runs, in seed order.
	PerSeed []metrics.Summary
	// Rewards are the policy's scores under Report.Rewards, each the
	// mean over seeds of PerSeedRewards; nil without rewards.
	Rewards []float64
	// PerSeedRewards are the scores of the single runs, in seed order, each
	// in the order of Report.Rewards.
	PerSeedRewards [][]float64
}

// BinRatios are a policy's median, p95 and p99 slowdown in one flow-size
// bin divided by the reference policy's (see PolicyResult.BinVsRef).
type BinRatios struct {
	P50, P95, P99 metrics.Ratio
}

// RefIndex returns the index of the reference policy in r.Policies.
func (r *Report) RefIndex() int {
	return max(0, slices.Index(r.Policies, r.Reference))
}

// NormalizedMeanSlowdown returns the mean slowdown of policy p on scenario
// s divided by the reference policy's.
func (r *Report) NormalizedMeanSlowdown(s, p int) float64 {
	sr := r.Scenarios[s]
	return metrics.Normalize(sr.Policies[p].Summary.Slowdown.Mean, sr.Policies[r.RefIndex()].Summary.Slowdown.Mean)
}

// SlowdownLOO returns the policy's mean slowdown leaving out each seed in
// turn (metrics.Jackknife), nil without intervals.
func (pr *PolicyResult) SlowdownLOO() []float64 { return pr.slowdownLOO }

// VsOther returns pr's mean slowdown and SmallP99 divided by ref's, a
// policy run in another evaluation of the same scenario at the same seeds,
// with the intervals (or none) that one evaluation of both against ref
// would give pr's MeanVsRef and SmallP99VsRef: a comparison with a run
// already made, without running it again.
func (pr *PolicyResult) VsOther(ref *PolicyResult) (mean, smallP99 metrics.Ratio) {
	mean = jackRatio(metrics.Normalize(pr.Summary.Slowdown.Mean, ref.Summary.Slowdown.Mean), pr.slowdownLOO, ref.slowdownLOO)
	smallP99 = jackRatio(metrics.Normalize(pr.SmallP99, ref.SmallP99), pr.smallLOO, ref.smallLOO)
	return mean, smallP99
}

// GeoMeanSlowdown returns policy p's mean slowdown, or with several
// scenarios the geometric mean over them of its mean slowdowns.
func (r *Report) GeoMeanSlowdown(p int) float64 {
	if len(r.Scenarios) == 1 {
		return r.Scenarios[0].Policies[p].Summary.Slowdown.Mean
	}
	s := 0.0
	for _, sr := range r.Scenarios {
		s += math.Log(sr.Policies[p].Summary.Slowdown.Mean)
	}
	return math.Exp(s / float64(len(r.Scenarios)))
}

// GeoMeanRatio returns policy a's mean slowdown divided by policy b's
// (with several scenarios, the geometric mean over them of that ratio),
// with its interval from the leave-one-seed-out ratios when every
// scenario has them. Both policies' leave-one-out values are ratios to
// the reference, so their quotient is a's to b's.
func (r *Report) GeoMeanRatio(a, b int) metrics.Ratio {
	ratios := make([]float64, len(r.Scenarios))
	loos := make([][]float64, len(r.Scenarios))
	for i, sr := range r.Scenarios {
		pa, pb := sr.Policies[a], sr.Policies[b]
		ratios[i] = metrics.Normalize(pa.Summary.Slowdown.Mean, pb.Summary.Slowdown.Mean)
		if pa.meanLOO != nil && pb.meanLOO != nil {
			loos[i] = metrics.JackknifeRatios(pa.meanLOO, pb.meanLOO)
		}
	}
	if len(r.Scenarios) == 1 { // the ratio itself, not exp(log(ratio))
		return jackRatio(ratios[0], r.Scenarios[0].Policies[a].meanLOO, r.Scenarios[0].Policies[b].meanLOO)
	}
	return geoMean(ratios, loos, len(r.Seeds))
}
