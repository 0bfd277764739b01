package experiment

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"math"
	"slices"
	"strings"
	"testing"

	"graphcc/control"
	"graphcc/metrics"
	"graphcc/policy"
	"graphcc/scenario"
	"graphcc/topo"
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

// TestEvaluateYardsticks evaluates three policies on two scenarios at
// three seeds with static and low as yardsticks: the ratios to static,
// which is also the reference, are the reference's ratios; a yardstick
// against itself is exactly 1; the reports show and name them.
func TestEvaluateYardsticks(t *testing.T) {
	c := tinyEval()
	c.Seeds = []uint64{1, 2, 3}
	c.Scenarios[0].Gen.Duration = 4 * topo.Millisecond
	tiny2 := c.Scenarios[0]
	tiny2.Name, tiny2.Gen.Load = "tiny2", 0.4
	c.Scenarios = append(c.Scenarios, tiny2)
	c.Policies = append(c.Policies, policy.Named{Name: "high", New: policy.Fixed(control.ECN{KMin: 50 * control.KB, KMax: 200 * control.KB, PMax: 0.1})})
	c.Yardsticks = []string{"static", "low"}
	r, err := Evaluate(context.Background(), c)
	if err != nil {
		t.Fatal(err)
	}
	exactly1 := metrics.Ratio{Value: 1, Lo: 1, Hi: 1}
	for si, sr := range r.Scenarios {
		for pi, pr := range sr.Policies {
			if len(pr.VsYardsticks) != 2 {
				t.Fatalf("%s, %s: %d yardstick ratios", sr.Scenario.Name, pr.Policy, len(pr.VsYardsticks))
			}
			if vs := pr.VsYardsticks[0]; vs.Mean != pr.MeanVsRef || vs.SmallP99 != pr.SmallP99VsRef {
				t.Errorf("%s, %s: to static %+v, %+v; the reference's ratios %+v, %+v", sr.Scenario.Name, pr.Policy, vs.Mean, vs.SmallP99, pr.MeanVsRef, pr.SmallP99VsRef)
			}
			low := pr.VsYardsticks[1].Mean
			want := sr.Policies[pi].Summary.Slowdown.Mean / sr.Policies[1].Summary.Slowdown.Mean
			if pi == 1 && low != exactly1 || pi != 1 && (low.Value != want || !(low.Lo < low.Value && low.Value < low.Hi)) {
				t.Errorf("scenario %d, %s / low: %+v, want %v with an interval", si, pr.Policy, low, want)
			}
		}
	}
	for p := range r.Policies {
		if got := r.GeoMeanVsYardsticks[0][p].Mean; got != r.GeoMeanVsRef[p] {
			t.Errorf("%s: geometric mean to static %+v, to the reference %+v", r.Policies[p], got, r.GeoMeanVsRef[p])
		}
	}
	if got := r.GeoMeanVsYardsticks[1][1]; got.Mean != exactly1 {
		t.Errorf("low's geometric mean to itself: %+v", got.Mean)
	}
	checkYardstickReports(t, r)
}

// checkYardstickReports checks the Markdown and JSON of TestEvaluateYardsticks's report.
func checkYardstickReports(t *testing.T, r *Report) {
	var md, js bytes.Buffer
	if err := r.WriteMarkdown(&md); err != nil {
		t.Fatal(err)
	}
	highLow := r.Scenarios[0].Policies[2].VsYardsticks[1].Mean
	si, worst := r.WorstVsYardstick(2, 1)
	for _, want := range []string{
		"\n## Yardsticks\n\nEvery policy's mean slowdown divided by each yardstick's (static, low) on the same traces: per scenario with its 95 % interval",
		"\n### Mean slowdown / static's\n\n| scenario | low | high |\n",
		"\n### Mean slowdown / low's\n\n| scenario | static | high |\n",
		"| tiny | " + fratio(r.Scenarios[0].Policies[0].VsYardsticks[1].Mean) + " | " + fratio(highLow) + " |\n",
		"| geometric mean | " + fratio(r.GeoMeanVsYardsticks[1][0].Mean) + " | " + fratio(r.GeoMeanVsYardsticks[1][2].Mean) + " |\n",
		"| geometric mean, p99 ≤100KB | ",
		"- static: above low on ",
		", highest " + fratio(worst) + " on " + r.Scenarios[si].Scenario.Name,
		"- low: above static on ",
	} {
		if !strings.Contains(md.String(), want) {
			t.Errorf("markdown lacks %q:\n%s", want, md.String())
		}
	}
	if err := r.WriteJSON(&js); err != nil {
		t.Fatal(err)
	}
	var m struct {
		Yardsticks   []string `json:"yardsticks"`
		VsYardsticks []struct {
			Yardstick string `json:"yardstick"`
			Policies  []struct {
				Policy    string    `json:"policy"`
				GeoMean   *float64  `json:"geomean_mean_slowdown"`
				GeoMeanCI []float64 `json:"geomean_mean_slowdown_ci"`
				Worst     *struct {
					Scenario string    `json:"scenario"`
					Mean     float64   `json:"mean_slowdown"`
					MeanCI   []float64 `json:"mean_slowdown_ci"`
				} `json:"worst"`
				Above []struct {
					Scenario string `json:"scenario"`
				} `json:"above"`
			} `json:"policies"`
		} `json:"vs_yardsticks"`
		Scenarios []struct {
			Policies []struct {
				VsYardsticks []struct {
					Yardstick string    `json:"yardstick"`
					Mean      float64   `json:"mean_slowdown"`
					MeanCI    []float64 `json:"mean_slowdown_ci"`
					SmallCI   []float64 `json:"slowdown_p99_small_ci"`
				} `json:"vs_yardsticks"`
			} `json:"policies"`
		} `json:"scenarios"`
	}
	if err := json.Unmarshal(js.Bytes(), &m); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(m.Yardsticks, []string{"static", "low"}) || len(m.VsYardsticks) != 2 || m.VsYardsticks[1].Yardstick != "low" {
		t.Fatalf("json yardsticks %v, %d summaries", m.Yardsticks, len(m.VsYardsticks))
	}
	hj := m.VsYardsticks[1].Policies[2]
	g := r.GeoMeanVsYardsticks[1][2].Mean
	if hj.Policy != "high" || hj.GeoMean == nil || *hj.GeoMean != g.Value || !slices.Equal(hj.GeoMeanCI, []float64{g.Lo, g.Hi}) ||
		hj.Worst == nil || hj.Worst.Scenario != r.Scenarios[si].Scenario.Name || hj.Worst.Mean != worst.Value || len(hj.Above) != len(r.AboveYardstick(2, 1)) {
		t.Errorf("json, high against low: %+v", hj)
	}
	cell := m.Scenarios[0].Policies[2].VsYardsticks[1]
	if cell.Yardstick != "low" || cell.Mean != highLow.Value || !slices.Equal(cell.MeanCI, []float64{highLow.Lo, highLow.Hi}) {
		t.Errorf("json, high / low on tiny: %+v, want %+v", cell, highLow)
	}
	if self := m.VsYardsticks[0].Policies[0]; self.Worst == nil || self.Above == nil || len(self.Above) != 0 {
		t.Errorf("json, static against itself: worst %+v, above %v (want [])", self.Worst, self.Above)
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

// TestNoYardsticksNoKeys: without yardsticks the report has none of their
// keys or sections, as before they existed.
func TestNoYardsticksNoKeys(t *testing.T) {
	r, err := Evaluate(context.Background(), tinyEval())
	if err != nil {
		t.Fatal(err)
	}
	var md, js bytes.Buffer
	if err := r.WriteMarkdown(&md); err != nil {
		t.Fatal(err)
	}
	if err := r.WriteJSON(&js); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(md.String(), "Yardsticks") || strings.Contains(js.String(), "yardstick") || r.GeoMeanVsYardsticks != nil {
		t.Errorf("yardsticks in a report without them:\n%s", md.String())
	}
}
