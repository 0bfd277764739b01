package experiment

import (
	"math"

	"graphcc/metrics"
	"graphcc/scenario"
)

// On a phased scenario the mean slowdown over all flows can be one
// phase's: day's 5 ms of GoogleRPC2008 at 90 % make most of its flows
// and of its slowdown sum. So every run of a phased scenario splits its
// flows by the phase they start in (metrics.SlowdownByPhase: each run's
// Summary.Phases, and the merged one's over every seed's records), the
// report puts each phase's mean slowdown beside the reference's with the
// interval the other ratios have (PolicyResult.PhaseVsRef, from the same
// jackknife over seeds), and says what share of the flows and of the
// reference's slowdown sum each phase holds.

// phasesOf returns how sc's flows split by phase: nothing if it is not
// phased.
func phasesOf(sc scenario.Scenario) metrics.Phases {
	starts := sc.PhaseStarts()
	if starts == nil {
		return metrics.Phases{}
	}
	return metrics.Phases{Origin: sc.ArrivalStart(), Starts: starts}
}

// phaseRatios returns, per phase, the mean slowdown of a policy's flows
// (its phases p) divided by the reference's (ref), NaN where either has
// none, with the interval from their statistics leaving out each seed (lp
// and lr, nil without intervals); nil without phases.
func phaseRatios(p, ref []metrics.PhaseStats, lp, lr *metrics.Jackknife) []metrics.Ratio {
	if len(p) == 0 || len(p) != len(ref) {
		return nil
	}
	out := make([]metrics.Ratio, len(p))
	for i := range p {
		v := math.NaN()
		if p[i].Slowdown.Count > 0 && ref[i].Slowdown.Count > 0 {
			v = metrics.Normalize(p[i].Slowdown.Mean, ref[i].Slowdown.Mean)
		}
		out[i] = metrics.Ratio{Value: v}
		if lp != nil && lr != nil && i < len(lp.PhaseMean) && i < len(lr.PhaseMean) {
			out[i] = jackRatio(v, lp.PhaseMean[i], lr.PhaseMean[i])
		}
	}
	return out
}
