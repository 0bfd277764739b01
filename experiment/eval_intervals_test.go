package experiment

import (
	"math"
	"testing"

	"graphcc/metrics"
)

func TestGeoMeans(t *testing.T) {
	pol := func(name string, mean float64, loo ...float64) PolicyResult {
		pr := PolicyResult{Policy: name, meanLOO: loo}
		pr.Summary.Slowdown.Mean = mean
		return pr
	}
	r := &Report{Reference: "ref", Policies: []string{"ref", "p", "q"}, Seeds: []uint64{1, 2, 3},
		Scenarios: []ScenarioResult{
			{Policies: []PolicyResult{pol("ref", 2, 1, 1, 1), pol("p", 1, 0.5, 0.5, 0.5), pol("q", 3)}},
			{Policies: []PolicyResult{pol("ref", 2, 1, 1, 1), pol("p", 4, 1, 2, 4), pol("q", 3, 1.5, 1.5, 1.5)}},
		}}
	r.setGeoMeans()
	// mean 0; sqrt(2/3 · 2·(ln2/2)²) = ln2/sqrt(3)
	half := 4.302652729749462 * math.Ln2 / math.Sqrt(3)
	if got := r.GeoMeanVsRef[0]; got != (metrics.Ratio{Value: 1, Lo: 1, Hi: 1}) {
		t.Errorf("reference: %+v", got)
	}
	if got := r.GeoMeanVsRef[1]; math.Abs(got.Value-1) > 1e-12 || math.Abs(got.Lo-math.Exp(-half)) > 1e-9 || math.Abs(got.Hi-math.Exp(half)) > 1e-9 {
		t.Errorf("p: %+v, want 1 times exp(±%v)", got, half)
	}
	// q lacks the seed ratios of one scenario: a value, no interval.
	if got := r.GeoMeanVsRef[2]; math.Abs(got.Value-1.5) > 1e-12 || got.HasInterval() {
		t.Errorf("q: %+v, want 1.5 without an interval", got)
	}
	r.Scenarios = r.Scenarios[:1]
	r.GeoMeanVsRef = nil
	if r.setGeoMeans(); r.GeoMeanVsRef != nil {
		t.Error("a geometric mean over one scenario")
	}
}
