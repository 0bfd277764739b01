package report

import (
	"fmt"
	"strings"

	"graphcc/experiment"
	"graphcc/internal/fileio"
	"graphcc/metrics"
	"graphcc/scenario"
)

// phaseShares returns, per phase of phases, its share of their flows and
// of their slowdown sum (count × mean), NaN without flows.
func phaseShares(phases []metrics.PhaseStats) (flows, slowdown []float64) {
	var n, sum float64
	for _, p := range phases {
		n += float64(p.Slowdown.Count)
		sum += float64(p.Slowdown.Count) * p.Slowdown.Mean
	}
	flows, slowdown = make([]float64, len(phases)), make([]float64, len(phases))
	for i, p := range phases {
		flows[i] = metrics.Normalize(float64(p.Slowdown.Count), n)
		slowdown[i] = metrics.Normalize(float64(p.Slowdown.Count)*p.Slowdown.Mean, sum)
	}
	return flows, slowdown
}

// writePhases writes the "by phase" table of phased scenario si: per
// phase (as Describe words it), its share of the reference's flows and of
// the reference's slowdown sum, the reference's mean slowdown of its
// flows, and each other policy's divided by that, with its interval.
// Nothing for a scenario without phases.
func (r view) writePhases(b *strings.Builder, si int) {
	sr := &r.Scenarios[si]
	ref := r.RefIndex()
	rp := sr.Policies[ref]
	if len(rp.Summary.Phases) == 0 || len(rp.Summary.Phases) != len(sr.Scenario.Gen.Phases) {
		return
	}
	ci := ""
	if len(r.Seeds) >= metrics.MinIntervalSeeds {
		ci = fmt.Sprintf(" (%.0f %% CI)", 100*metrics.CILevel)
	}
	refName := mdCell(r.Reference)
	fmt.Fprintf(b, "\n### %s by phase\n\n", sr.Scenario.Name)
	fmt.Fprintf(b, "Each phase's flows are those that start in it, over every seed: how many, their share of %s's completed flows and of the sum of %s's slowdowns "+
		"(the scenario's mean slowdown is that sum over the flows), %s's mean slowdown of them, and each other policy's divided by it%s.\n\n", refName, refName, refName, ci)
	b.WriteString("| phase | starts at | flows | of the flows | of " + refName + "'s slowdown sum | mean slowdown " + refName + " |")
	var others []int
	for pi, pr := range sr.Policies {
		if pi != ref {
			others = append(others, pi)
			fmt.Fprintf(b, " %s / %s |", mdCell(pr.Policy), refName)
		}
	}
	b.WriteString("\n|---|---:|---:|---:|---:|---:|" + strings.Repeat("---:|", len(others)) + "\n")
	flows, slowdown := phaseShares(rp.Summary.Phases)
	for i, ph := range rp.Summary.Phases {
		fmt.Fprintf(b, "| %s | %s ms | %s | %s %% | %s %% | %s |", mdCell(scenario.DescribePhase(sr.Scenario.Gen.Phases[i])),
			fnum(ph.StartMs, -1), groupThousands(ph.Slowdown.Count), fnum(100*flows[i], 1), fnum(100*slowdown[i], 1), fnumCount(ph.Slowdown))
		for _, pi := range others {
			cell := "–"
			if i < len(sr.Policies[pi].PhaseVsRef) {
				cell = fratio(sr.Policies[pi].PhaseVsRef[i]) + r.incompleteMark(si, pi)
			}
			fmt.Fprintf(b, " %s |", cell)
		}
		b.WriteString("\n")
	}
}

// fnumCount formats the mean of s, "–" without flows.
func fnumCount(s metrics.Stats) string {
	if s.Count == 0 {
		return "–"
	}
	return fnum(s.Mean, 3)
}

// phaseRatioJSON is one phase of a policy's result in WriteJSON: its mean
// slowdown divided by the reference's and the interval, and its shares of
// the policy's own flows and slowdown sum.
type phaseRatioJSON struct {
	MeanVsRef        *float64  `json:"mean_slowdown_vs_reference"`
	MeanVsRefCI      []float64 `json:"mean_slowdown_vs_reference_ci"`
	FlowShare        *float64  `json:"flow_share"`
	SlowdownSumShare *float64  `json:"slowdown_sum_share"`
}

// phaseRatiosJSON is pr's phases in WriteJSON; nil on a scenario without
// phases.
func phaseRatiosJSON(pr experiment.PolicyResult) []phaseRatioJSON {
	if len(pr.Summary.Phases) == 0 {
		return nil
	}
	flows, slowdown := phaseShares(pr.Summary.Phases)
	fj, sj := fileio.JSONFloats(flows), fileio.JSONFloats(slowdown)
	out := make([]phaseRatioJSON, len(pr.Summary.Phases))
	for i := range out {
		out[i].FlowShare, out[i].SlowdownSumShare = fj[i], sj[i]
		if i < len(pr.PhaseVsRef) {
			out[i].MeanVsRef, out[i].MeanVsRefCI = ratioJSON(pr.PhaseVsRef[i])
		}
	}
	return out
}
