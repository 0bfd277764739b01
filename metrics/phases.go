package metrics

import (
	"slices"

	"graphcc/topo"
	"graphcc/trace"
)

// Phases splits the flows of a phased trace by the phase they start in
// (SlowdownByPhase). Starts are the phases' start times, ps, counted from
// Origin, the start of the arrival window (scenario.Scenario.ArrivalStart:
// 2 s for generated traffic, where a sched: policy's times count from
// too); they increase, the first is 0. Phase i holds the flows that start
// at or after Origin+Starts[i] and before Origin+Starts[i+1]: a flow
// exactly at a boundary belongs to the later phase. The first phase also
// holds any flow that starts before Origin, the last any that starts after
// the window. The zero Phases has no phases.
type Phases struct {
	Origin int64
	Starts []int64
}

// Index returns the phase of a flow that starts at start (ps, absolute);
// 0 without phases.
func (p Phases) Index(start int64) int {
	// start - Origin cannot overflow: both are times of a trace, >= 0.
	i, found := slices.BinarySearch(p.Starts, start-p.Origin)
	if !found {
		i-- // the last phase starting before it
	}
	return max(i, 0)
}

// PhaseStats are the slowdowns of the flows that start in one phase of a
// phased trace (see Phases).
type PhaseStats struct {
	// StartMs is the phase's start, ms from the start of the arrival
	// window.
	StartMs float64 `json:"start_ms"`
	// Slowdown summarizes the phase's flows (count, mean, percentiles;
	// zero for a phase without flows).
	Slowdown Stats `json:"slowdown"`
	// SmallP99 is the p99 slowdown of its flows of at most SmallFlowBytes
	// (0 if it has none), as the eval report's short-flow p99.
	SmallP99 float64 `json:"slowdown_p99_small"`
}

// SlowdownByPhase returns, per phase of p, the slowdown statistics of the
// records that start in it (Phases.Index), with percentiles as
// SlowdownStats takes them: a phase's Stats are those SlowdownStats gives
// of its records. It makes one pass over recs and holds each slowdown
// once (twice for flows of at most SmallFlowBytes); nil without phases.
func SlowdownByPhase(recs []trace.FCT, p Phases) []PhaseStats {
	if len(p.Starts) == 0 {
		return nil
	}
	all, small := make([][]float64, len(p.Starts)), make([][]float64, len(p.Starts))
	for _, r := range recs {
		i, v := p.Index(r.Start), r.Slowdown()
		all[i] = append(all[i], v)
		if r.Size <= SmallFlowBytes {
			small[i] = append(small[i], v)
		}
	}
	out := make([]PhaseStats, len(p.Starts))
	for i, s := range p.Starts {
		slices.Sort(small[i])
		out[i] = PhaseStats{StartMs: float64(s) / float64(topo.Millisecond), Slowdown: statsOf(all[i]), SmallP99: percentile(small[i], 0.99)}
	}
	return out
}
