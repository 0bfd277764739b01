package report

import (
	"bytes"
	"context"
	"encoding/json"
	"math"
	"slices"
	"strings"
	"testing"

	"graphcc/experiment"
	"graphcc/metrics"
	"graphcc/topo"
)

func TestRatio(t *testing.T) {
	for _, tc := range []struct {
		r        metrics.Ratio
		has, out bool
		text     string
	}{
		{metrics.Ratio{Value: 0.98}, false, false, "0.980"},
		{metrics.Ratio{Value: 0.98, Lo: 0.97, Hi: 0.99}, true, true, "0.980 (0.970–0.990)"},
		{metrics.Ratio{Value: 1.02, Lo: 1.001, Hi: 1.04}, true, true, "1.020 (1.001–1.040)"},
		{metrics.Ratio{Value: 0.99, Lo: 0.97, Hi: 1.01}, true, false, "0.990 (0.970–1.010)"},
		{metrics.Ratio{Value: 1, Lo: 1, Hi: 1}, true, false, "1.000"},
		{metrics.Ratio{Value: math.NaN()}, false, false, "–"},
	} {
		if got := tc.r.HasInterval(); got != tc.has {
			t.Errorf("%+v: HasInterval %v", tc.r, got)
		}
		if got := tc.r.Excludes1(); got != tc.out {
			t.Errorf("%+v: Excludes1 %v", tc.r, got)
		}
		if got := fratio(tc.r); got != tc.text {
			t.Errorf("%+v: %q, want %q", tc.r, got, tc.text)
		}
	}
}

// TestEvaluateIntervals: with three seeds every ratio has an interval that
// holds it, the reference's is exactly 1, and the report and JSON show
// them.
func TestEvaluateIntervals(t *testing.T) {
	c := tinyEval()
	c.Seeds = []uint64{1, 2, 3}
	// 4 ms of arrivals: enough small flows for the p99's interval
	// (MinTailPerSeed)
	c.Scenarios[0].Gen.Duration = 4 * topo.Millisecond
	tiny2 := c.Scenarios[0]
	tiny2.Name, tiny2.Gen.Load = "tiny2", 0.4
	c.Scenarios = append(c.Scenarios, tiny2)
	r, err := experiment.Evaluate(context.Background(), c)
	if err != nil {
		t.Fatal(err)
	}
	sr := r.Scenarios[0]
	if got := sr.Policies[0]; got.MeanVsRef != (metrics.Ratio{Value: 1, Lo: 1, Hi: 1}) || got.SmallP99VsRef != (metrics.Ratio{Value: 1, Lo: 1, Hi: 1}) {
		t.Errorf("reference's own ratios %+v and %+v, want exactly 1", got.MeanVsRef, got.SmallP99VsRef)
	}
	low := sr.Policies[1]
	for _, m := range []metrics.Ratio{low.MeanVsRef, low.SmallP99VsRef} {
		// symmetric on the log scale: Lo·Hi = Value²
		if !(0 < m.Lo && m.Lo < m.Value && m.Value < m.Hi) || math.Abs(m.Lo*m.Hi/(m.Value*m.Value)-1) > 1e-12 {
			t.Errorf("low's ratio %+v: not an interval around its value, symmetric in log", m)
		}
	}
	for _, tc := range []struct {
		got       metrics.Ratio
		pol, refv float64
	}{
		{low.ThroughputVsRef, low.Summary.ThroughputGbpsMean, sr.Policies[0].Summary.ThroughputGbpsMean},
		{low.QueueVsRef, low.Summary.QueueBytesMean, sr.Policies[0].Summary.QueueBytesMean},
	} {
		if tc.got.Value != tc.pol/tc.refv || !tc.got.HasInterval() || !(tc.got.Lo <= tc.got.Value && tc.got.Value <= tc.got.Hi) {
			t.Errorf("ratio %+v, want %v with an interval around it", tc.got, tc.pol/tc.refv)
		}
	}
	if low.MeanVsRef.Value != r.NormalizedMeanSlowdown(0, 1) {
		t.Errorf("low's mean ratio %v, normalized mean slowdown %v", low.MeanVsRef.Value, r.NormalizedMeanSlowdown(0, 1))
	}
	// Per figure bin: the reference is exactly 1 where it has flows, and
	// low's ratios are the bins' statistics divided, with intervals.
	withIntervals := 0
	for b, br := range low.BinVsRef {
		rs, ls, refBin := sr.Policies[0].SlowdownByBin[b], low.SlowdownByBin[b], sr.Policies[0].BinVsRef[b]
		for i, get := range [3]func(metrics.Stats) float64{
			func(s metrics.Stats) float64 { return s.P50 }, func(s metrics.Stats) float64 { return s.P95 }, func(s metrics.Stats) float64 { return s.P99 },
		} {
			got, self := [3]metrics.Ratio{br.P50, br.P95, br.P99}[i], [3]metrics.Ratio{refBin.P50, refBin.P95, refBin.P99}[i]
			if rs.Count == 0 || ls.Count == 0 {
				if !math.IsNaN(got.Value) || got.HasInterval() {
					t.Errorf("bin %d, statistic %d, without flows: %+v", b, i, got)
				}
				continue
			}
			if self.Value != 1 || self.HasInterval() && self != (metrics.Ratio{Value: 1, Lo: 1, Hi: 1}) || got.Value != get(ls)/get(rs) {
				t.Errorf("bin %d, statistic %d: reference %+v, low %v (want %v)", b, i, self, got.Value, get(ls)/get(rs))
			}
			if got.HasInterval() {
				withIntervals++
				if !(got.Lo <= got.Value && got.Value <= got.Hi) {
					t.Errorf("bin %d, statistic %d: %+v", b, i, got)
				}
			}
		}
	}
	if withIntervals < 3 {
		t.Errorf("only %d of low's bin ratios have intervals", withIntervals)
	}
	g := r.GeoMeanVsRef
	if want := math.Sqrt(r.NormalizedMeanSlowdown(0, 1) * r.NormalizedMeanSlowdown(1, 1)); len(g) != 2 || g[0] != (metrics.Ratio{Value: 1, Lo: 1, Hi: 1}) ||
		math.Abs(g[1].Value-want) > 1e-12 || !(g[1].Lo < g[1].Value && g[1].Value < g[1].Hi) {
		t.Errorf("geometric means %+v, want 1 and %v with an interval", g, want)
	}
	var md, js bytes.Buffer
	if err := WriteMarkdown(&md, r); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(relativeTo(low.MeanVsRef, "low"), "(95 % CI ") {
		t.Errorf("the summary of low's mean lacks its interval: %s", relativeTo(low.MeanVsRef, "low"))
	}
	for _, want := range []string{"| mean slowdown / static (95 % CI) | p99 ≤100KB / static (95 % CI) |",
		"95 % intervals from the variation between seeds (delete-one-seed jackknife of the ratio's logarithm, Student's t with 2 degrees of freedom)",
		" | " + fratio(low.MeanVsRef) + " | " + fratio(low.SmallP99VsRef) + " | ",
		"| geometric mean | 1.000 | " + fratio(g[1]) + " |\n",
		"| " + sr.Scenario.Name + " | 1.000 | " + fratio(low.MeanVsRef) + " |\n",
		// the summary leads, worded as the targets are, with intervals
		"# Evaluation\n\n## Summary\n\nstatic against each other policy",
		"- static on " + sr.Scenario.Name + ": mean slowdown " + relativeTo(low.MeanVsRef, "low") + "; short-flow p99 slowdown " + relativeTo(low.SmallP99VsRef, "low") + ".\n",
		"- static over the 2 scenarios (geometric mean of the ratios): mean slowdown " + relativeTo(g[1], "low") + ".\n"} {
		if !strings.Contains(md.String(), want) {
			t.Errorf("markdown lacks %q:\n%s", want, md.String())
		}
	}
	if err := WriteJSON(&js, r); err != nil {
		t.Fatal(err)
	}
	var m struct {
		Level     float64     `json:"ci_level"`
		GeoMean   []float64   `json:"geomean_mean_slowdown_vs_reference"`
		GeoMeanCI [][]float64 `json:"geomean_mean_slowdown_vs_reference_ci"`
		Scenarios []struct {
			Policies []struct {
				NormCI  []float64 `json:"mean_slowdown_vs_reference_ci"`
				Queue   *float64  `json:"queue_mean_vs_reference"`
				QueueCI []float64 `json:"queue_mean_vs_reference_ci"`
				TputCI  []float64 `json:"throughput_vs_reference_ci"`
				SmallCI []float64 `json:"slowdown_p99_small_vs_reference_ci"`
				Bins    []struct {
					P99   *float64  `json:"p99"`
					P99CI []float64 `json:"p99_ci"`
				} `json:"slowdown_by_figure_bin_vs_reference"`
			}
		}
	}
	if err := json.Unmarshal(js.Bytes(), &m); err != nil {
		t.Fatal(err)
	}
	p := m.Scenarios[0].Policies[1]
	if m.Level != 0.95 || !slices.Equal(p.NormCI, []float64{low.MeanVsRef.Lo, low.MeanVsRef.Hi}) ||
		!slices.Equal(p.SmallCI, []float64{low.SmallP99VsRef.Lo, low.SmallP99VsRef.Hi}) {
		t.Errorf("json: level %v, intervals %v and %v", m.Level, p.NormCI, p.SmallCI)
	}
	if p.Queue == nil || *p.Queue != low.QueueVsRef.Value || !slices.Equal(p.QueueCI, []float64{low.QueueVsRef.Lo, low.QueueVsRef.Hi}) ||
		!slices.Equal(p.TputCI, []float64{low.ThroughputVsRef.Lo, low.ThroughputVsRef.Hi}) {
		t.Errorf("json queue %v %v, throughput interval %v", p.Queue, p.QueueCI, p.TputCI)
	}
	for b, bj := range p.Bins {
		want := low.BinVsRef[b].P99
		if math.IsNaN(want.Value) != (bj.P99 == nil) || bj.P99 != nil && *bj.P99 != want.Value || want.HasInterval() != (bj.P99CI != nil) {
			t.Errorf("json bin %d p99: %v %v, want %+v", b, bj.P99, bj.P99CI, want)
		}
	}
	if len(p.Bins) != len(metrics.FigureBins()) {
		t.Errorf("json has %d bins", len(p.Bins))
	}
	if !slices.Equal(m.GeoMean, []float64{1, g[1].Value}) || len(m.GeoMeanCI) != 2 || !slices.Equal(m.GeoMeanCI[1], []float64{g[1].Lo, g[1].Hi}) {
		t.Errorf("json geometric means %v, intervals %v", m.GeoMean, m.GeoMeanCI)
	}
}

// TestGeoMeans checks the geometric mean's interval against a hand
// computation: over two scenarios where the policy's ratios are 0.5 and 2,
// leaving out each of three seeds gives 0.5, 0.5, 0.5 on the first and 1, 2
// and 4 on the second, so the geometric means leaving out each seed are
// sqrt(0.5), 1 and sqrt(2), whose logarithms are -ln2/2, 0 and ln2/2.
func TestRelativeTo(t *testing.T) {
	for _, tc := range []struct {
		r    metrics.Ratio
		want string
	}{
		// the main job's static against graphcc
		{metrics.Ratio{Value: 1.273, Lo: 1.228, Hi: 1.319}, "21.4 % below static (95 % CI 18.6–24.2 %)"},
		{metrics.Ratio{Value: 1.010, Lo: 0.995, Hi: 1.025}, "1.0 % below static (95 % CI −0.5 to 2.4 %)"},
		{metrics.Ratio{Value: 0.9, Lo: 0.85, Hi: 0.95}, "11.1 % above static (95 % CI 5.3–17.6 %)"},
		{metrics.Ratio{Value: 0.97}, "3.1 % above static"},
		{metrics.Ratio{Value: 1}, "0.0 % below static"},
		{metrics.Ratio{Value: 1, Lo: 1, Hi: 1}, "0.0 % below static"},
		{metrics.Ratio{Value: math.NaN()}, "undefined against static"},
	} {
		if got := relativeTo(tc.r, "static"); got != tc.want {
			t.Errorf("relativeTo(%+v) = %q, want %q", tc.r, got, tc.want)
		}
	}
}
