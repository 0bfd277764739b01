package experiment

import (
	"context"
	"errors"
	"math"
	"slices"
	"strings"
	"testing"

	"graphcc/metrics"
	"graphcc/scenario"
	"graphcc/trace"
)

// oneFlowPerSeed returns the FCT records of runs with one flow of 200 KB
// per seed, of the given slowdowns, in seed order.
func oneFlowPerSeed(slowdowns ...float64) [][]trace.FCT {
	runs := make([][]trace.FCT, len(slowdowns))
	for k, s := range slowdowns {
		runs[k] = []trace.FCT{{Size: 200_000, Standalone: 1000, FCT: int64(math.Round(1000 * s))}}
	}
	return runs
}

// TestYardstickRatiosByHand checks the ratios to a yardstick and their
// geometric mean against a computation by hand. Three seeds, one flow
// each. On scenario A the policy's slowdowns are 1, 2 and 3 and the
// yardstick's 1, 1 and 1: the ratio of the means is 2/1 = 2, and leaving
// out each seed in turn it is 2.5, 2 and 1.5. Their logarithms 0.91629,
// 0.69315 and 0.40547 have the mean 0.67163; the deviations 0.24466,
// 0.02151 and −0.26617 square to 0.059857, 0.000463 and 0.070846, whose sum
// 0.131166 times (S−1)/S = 2/3 is 0.087444, so SE = 0.29571, and with
// Student's t for 2 degrees of freedom, 4.30265, the half-width on the log
// scale is h = 1.27233: the interval is 2·e^−h = 0.56035 to 2·e^h = 7.1383.
// On scenario B both have slowdowns 2, 2 and 2: the ratio is 1 at every
// seed left out. Over A and B the geometric mean is √(2·1) = 1.41421, and
// leaving out each seed its logarithm is half of A's, so its half-width
// is h/2 = 0.63617: 1.41421·e^∓0.63617 = 0.74857 to 2.67177.
func TestYardstickRatiosByHand(t *testing.T) {
	bins := metrics.FigureBins()
	jack := func(slowdowns ...float64) *metrics.Jackknife {
		return metrics.NewJackknife(oneFlowPerSeed(slowdowns...), []float64{0, 0, 0}, bins, metrics.Phases{})
	}
	result := func(mean float64) *PolicyResult {
		pr := &PolicyResult{SmallP99: math.NaN()}
		pr.Summary.Slowdown.Mean = mean
		return pr
	}
	a := yardstickRatios(result(2), result(1), jack(1, 2, 3), jack(1, 1, 1))
	b := yardstickRatios(result(2), result(2), jack(2, 2, 2), jack(2, 2, 2))
	near := func(got, want float64) bool { return math.Abs(got/want-1) < 1e-4 }
	if m := a.Mean; m.Value != 2 || !near(m.Lo, 0.56035) || !near(m.Hi, 7.1383) {
		t.Errorf("scenario A: %+v, want 2 (0.56035–7.1383)", m)
	}
	if !slices.Equal(a.meanLOO, []float64{2.5, 2, 1.5}) {
		t.Errorf("scenario A leaving out each seed: %v, want 2.5, 2, 1.5", a.meanLOO)
	}
	if b.Mean != (metrics.Ratio{Value: 1, Lo: 1, Hi: 1}) {
		t.Errorf("scenario B: %+v, want exactly 1", b.Mean)
	}
	// no small flows: the short-flow ratio is undefined, without an interval
	if !math.IsNaN(a.SmallP99.Value) || a.SmallP99.HasInterval() || a.smallLOO != nil {
		t.Errorf("short-flow ratio without small flows: %+v, %v", a.SmallP99, a.smallLOO)
	}
	g := geoMean([]float64{a.Mean.Value, b.Mean.Value}, [][]float64{a.meanLOO, b.meanLOO}, 3)
	if !near(g.Value, 1.41421) || !near(g.Lo, 0.74857) || !near(g.Hi, 2.67177) {
		t.Errorf("geometric mean %+v, want 1.41421 (0.74857–2.67177)", g)
	}
	// Without the seeds left out, no interval; without values, NaN.
	for _, tc := range []struct {
		ratios []float64
		loos   [][]float64
		want   metrics.Ratio
	}{
		{[]float64{2, 1}, [][]float64{a.meanLOO, nil}, metrics.Ratio{Value: math.Sqrt2}},
		{[]float64{2, math.NaN()}, [][]float64{a.meanLOO, {1, math.NaN(), 1}}, metrics.Ratio{Value: 2}},
		{[]float64{0.5}, [][]float64{{0.5, 0.5, 0.5}}, metrics.Ratio{Value: 0.5, Lo: 0.5, Hi: 0.5}},
	} {
		if got := geoMean(tc.ratios, tc.loos, 3); math.Abs(got.Value-tc.want.Value) > 1e-12 || got.Lo != tc.want.Lo || got.Hi != tc.want.Hi {
			t.Errorf("geoMean(%v, %v) = %+v, want %+v", tc.ratios, tc.loos, got, tc.want)
		}
	}
	if got := geoMean([]float64{math.NaN(), 0}, nil, 3); !math.IsNaN(got.Value) || got.HasInterval() {
		t.Errorf("geoMean of nothing defined: %+v", got)
	}
	// Without the statistics leaving out each seed (two seeds), values only.
	if got := yardstickRatios(result(3), result(2), nil, nil); got.Mean != (metrics.Ratio{Value: 1.5}) || got.meanLOO != nil {
		t.Errorf("without intervals: %+v", got)
	}
}

// TestWorstAndAbove checks WorstVsYardstick and AboveYardstick on ratios
// given by hand: the worst is the highest defined ratio, the first of
// ties; above are the ratios over 1, equal to 1 not.
func TestWorstAndAbove(t *testing.T) {
	r := &Report{Policies: []string{"p"}, Yardsticks: []string{"y"}}
	for _, v := range []float64{0.9, 1.02, math.NaN(), 1, 1.02, 1.001} {
		r.Scenarios = append(r.Scenarios, ScenarioResult{Policies: []PolicyResult{{VsYardsticks: []YardstickRatios{{Mean: metrics.Ratio{Value: v}}}}}})
	}
	if si, w := r.WorstVsYardstick(0, 0); si != 1 || w.Value != 1.02 {
		t.Errorf("worst: scenario %d, %+v; want scenario 1, 1.02", si, w)
	}
	if got := r.AboveYardstick(0, 0); !slices.Equal(got, []int{1, 4, 5}) {
		t.Errorf("above: %v, want 1, 4, 5", got)
	}
	r.Scenarios = r.Scenarios[2:3]
	if si, w := r.WorstVsYardstick(0, 0); si != -1 || !math.IsNaN(w.Value) {
		t.Errorf("worst of NaN only: %d, %+v", si, w)
	}
}

// TestEvaluateYardstickErrors: a yardstick that is not a policy, or is
// given twice, and a policy whose check of a scenario fails, stop the
// evaluation before its first run.
func TestEvaluateYardstickErrors(t *testing.T) {
	noFile := errors.New("no tune result for scenario tiny")
	for _, tc := range []struct {
		yards []string
		check func(scenario.Scenario) error
		err   string
	}{
		{yards: []string{"tuned"}, err: `yardstick "tuned" is not one of the policies (static, low)`},
		{yards: []string{"low", "low"}, err: `yardstick "low" given twice`},
		{check: func(sc scenario.Scenario) error { return noFile }, err: "policy low on scenario tiny: no tune result for scenario tiny"},
	} {
		c := tinyEval()
		c.Yardsticks = tc.yards
		c.Policies[1].Check = tc.check
		ran := false
		c.Progress = func(int, int) { ran = true }
		_, err := Evaluate(context.Background(), c)
		if err == nil || !strings.Contains(err.Error(), tc.err) || ran {
			t.Errorf("yardsticks %v: error %v (ran %v), want one containing %q before any run", tc.yards, err, ran, tc.err)
		}
		if tc.check != nil && !errors.Is(err, noFile) {
			t.Errorf("the check's error is not wrapped: %v", err)
		}
	}
}
