package experiment

import (
	"math"
	"testing"

	"graphcc/metrics"
)

// must is a value of a call that cannot fail in a test.
func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

// TestPhaseRatios: a phase without flows, for the policy or the
// reference, has no ratio; a ratio has an interval only with both
// policies' statistics leaving out each seed.
func TestPhaseRatios(t *testing.T) {
	phase := func(n int, mean float64) metrics.PhaseStats {
		return metrics.PhaseStats{Slowdown: metrics.Stats{Count: n, Mean: mean}}
	}
	p := []metrics.PhaseStats{phase(10, 2), phase(0, 0), phase(5, 3)}
	ref := []metrics.PhaseStats{phase(10, 4), phase(3, 2), phase(0, 0)}
	got := phaseRatios(p, ref, nil, nil)
	if len(got) != 3 || got[0] != (metrics.Ratio{Value: 0.5}) || !math.IsNaN(got[1].Value) || !math.IsNaN(got[2].Value) {
		t.Errorf("phaseRatios = %+v", got)
	}
	lp := &metrics.Jackknife{PhaseMean: [][]float64{{2, 2.2, 1.8}, {math.NaN(), math.NaN(), math.NaN()}, {3, 3, 3}}}
	lr := &metrics.Jackknife{PhaseMean: [][]float64{{4, 4, 4}, {2, 2, 2}, {math.NaN(), math.NaN(), math.NaN()}}}
	got = phaseRatios(p, ref, lp, lr)
	if !got[0].HasInterval() || !(got[0].Lo < 0.5 && got[0].Hi > 0.5) || got[1].HasInterval() || got[2].HasInterval() {
		t.Errorf("phaseRatios with intervals = %+v", got)
	}
	if phaseRatios(nil, nil, lp, lr) != nil {
		t.Error("ratios without phases")
	}
}
