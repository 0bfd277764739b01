package replay

import (
	"bytes"
	"context"
	"encoding/json"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// intervalRecs returns n random FCT records, about half of them small
// flows, with slowdowns from 1 to about 30 and many ties.
func intervalRecs(r *rand.Rand, n int) []FCT {
	out := make([]FCT, n)
	for i := range out {
		out[i] = FCT{Size: int64(1000 + r.IntN(200_000)), Standalone: 1000,
			FCT: 1000 + int64(r.IntN(30))*1000*int64(r.IntN(2))}
	}
	return out
}

// TestFlowSample: over any set of seeds, the sample's statistics are those
// of the records of those seeds (the p99 exactly as SlowdownStats computes
// it).
func TestFlowSample(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 7))
	for _, sizes := range [][]int{{1}, {1, 2, 3}, {99, 100, 101}, {1000, 4321, 7, 250}} {
		runs := make([][]FCT, len(sizes))
		for k, n := range sizes {
			runs[k] = intervalRecs(r, n)
		}
		s := newFlowSample(runs)
		for mask := 1; mask < 1<<len(runs); mask++ {
			w := make([]bool, len(runs))
			var recs []FCT
			for k := range runs {
				if w[k] = mask&(1<<k) != 0; w[k] {
					recs = append(recs, runs[k]...)
				}
			}
			if got, want := s.mean(w), SlowdownStats(recs, nil).Mean; math.Abs(got-want) > 1e-12*want {
				t.Errorf("sizes %v, seeds %b: mean %v, want %v", sizes, mask, got, want)
			}
			small := SlowdownStats(recs, func(f FCT) bool { return f.Size <= SmallFlowBytes })
			got := s.smallP99(w)
			if small.Count == 0 {
				if !math.IsNaN(got) {
					t.Errorf("sizes %v, seeds %b: small p99 %v without small flows", sizes, mask, got)
				}
			} else if got != small.P99 {
				t.Errorf("sizes %v, seeds %b: small p99 %v, want %v", sizes, mask, got, small.P99)
			}
		}
	}
}

// TestFlowSampleKeepsLittle: of the small flows the sample keeps about
// 1 % per seed, and fromTop, on which that rests, never decreases.
func TestFlowSampleKeepsLittle(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 11))
	runs := make([][]FCT, 4)
	n := 0
	for k := range runs {
		runs[k] = intervalRecs(r, 20_000)
		for _, f := range runs[k] {
			if f.Size <= SmallFlowBytes {
				n++
			}
		}
	}
	s := newFlowSample(runs)
	if max := 4 * (fromTop(n) + 1); cap(s.small) > max || n < 20_000 {
		t.Errorf("%d small flows: the sample keeps %d (room for %d), want at most %d", n, len(s.small), cap(s.small), max)
	}
	prev := 0
	for n := 1; n <= 100_000; n++ {
		d := fromTop(n)
		if d < prev || d < 0 || d >= n {
			t.Fatalf("fromTop(%d) = %d after %d", n, d, prev)
		}
		prev = d
	}
}

// oneFlowSeeds returns a sample with one small flow per seed, of the given
// slowdowns.
func oneFlowSeeds(slowdowns ...float64) *flowSample {
	runs := make([][]FCT, len(slowdowns))
	for k, v := range slowdowns {
		runs[k] = []FCT{{Size: 1000, Standalone: 1000, FCT: int64(1000 * v)}}
	}
	return newFlowSample(runs)
}

// TestJackknife checks the half-widths against a hand computation: with
// the reference at 2 on each of three seeds and the policy at 2, 4 and 6,
// the ratios leaving out one seed are 2.5, 2 and 1.5, SE = sqrt(2/3 · 0.5)
// and t(2 df) = 4.302653.
func TestJackknife(t *testing.T) {
	samples := []*flowSample{oneFlowSeeds(2, 2, 2), oneFlowSeeds(2, 4, 6), oneFlowSeeds(4, 8, 12), oneFlowSeeds(2, 2, 2)}
	mean, small, loo := jackknife(samples, 0)
	if !slices.Equal(loo[1], []float64{2.5, 2, 1.5}) || !slices.Equal(loo[0], []float64{1, 1, 1}) {
		t.Errorf("mean ratios leaving out each seed: %v", loo)
	}
	want := 4.302652729749462 * math.Sqrt(2.0/3*0.5)
	for p, w := range []float64{0, want, 2 * want, 0} {
		if math.Abs(mean[p]-w) > 1e-9 {
			t.Errorf("policy %d: mean half-width %v, want %v", p, mean[p], w)
		}
	}
	// One flow per seed: the p99 of the seeds left is their largest, so
	// the ratios leaving out one seed are 3, 3 and 2.
	wantSmall := 4.302652729749462 * math.Sqrt(2.0/3*(1.0/9+1.0/9+4.0/9))
	if math.Abs(small[1]-wantSmall) > 1e-9 || small[0] != 0 {
		t.Errorf("small p99 half-widths %v, want [0 %v ...]", small, wantSmall)
	}
	// Equal values have no spread, whatever the rounding of their mean.
	for _, n := range []int{3, 7, 10, 49} {
		if h := jackknifeHalf(slices.Repeat([]float64{0.7}, n)); h != 0 {
			t.Errorf("%d equal values: half-width %v", n, h)
		}
	}
	if h := jackknifeHalf([]float64{1, math.NaN(), 1}); !math.IsNaN(h) {
		t.Errorf("a NaN value: half-width %v", h)
	}
	// Without small flows the small-flow ratio has no interval.
	none := []*flowSample{newFlowSample([][]FCT{{{Size: 1e6, Standalone: 1, FCT: 2}}, {{Size: 1e6, Standalone: 1, FCT: 3}}, {{Size: 1e6, Standalone: 1, FCT: 4}}})}
	if _, s, _ := jackknife(none, 0); !math.IsNaN(s[0]) {
		t.Errorf("no small flows: half-width %v, want NaN", s[0])
	}
}

// TestJackknifeCoverage: on seeds drawn independently, the 95 % interval
// of a ratio whose true value is 1 holds 1 in about 95 % of 300 synthetic
// evaluations of 5 seeds, and excludes it for a policy 10 % slower.
func TestJackknifeCoverage(t *testing.T) {
	r := rand.New(rand.NewPCG(10, 10))
	held, found := 0, 0
	const trials = 300
	for range trials {
		var runs [3][][]FCT
		for range 5 {
			load := 1 + 3*r.Float64() // a seed's traffic: every flow of it slower or faster
			var a, b, c []FCT
			for range 200 {
				f := FCT{Size: 1000, Standalone: 1000}
				f.FCT = 1000 + int64(1000*load*r.ExpFloat64())
				a = append(a, f)
				f.FCT = 1000 + int64(1000*load*r.ExpFloat64())
				b = append(b, f)
				f.FCT = f.FCT * 11 / 10
				c = append(c, f)
			}
			runs[0], runs[1], runs[2] = append(runs[0], a), append(runs[1], b), append(runs[2], c)
		}
		samples := []*flowSample{newFlowSample(runs[0]), newFlowSample(runs[1]), newFlowSample(runs[2])}
		all := slices.Repeat([]bool{true}, 5)
		mean, _, _ := jackknife(samples, 0)
		v := samples[1].mean(all) / samples[0].mean(all)
		if v-mean[1] <= 1 && 1 <= v+mean[1] {
			held++
		}
		if v = samples[2].mean(all) / samples[0].mean(all); v-mean[2] > 1 {
			found++
		}
	}
	if held < 270 || held > 297 {
		t.Errorf("the interval held the true ratio in %d of %d evaluations, want about 285", held, trials)
	}
	if found < 150 {
		t.Errorf("the interval found a 10 %% slower policy in %d of %d evaluations", found, trials)
	}
}

func TestRatio(t *testing.T) {
	for _, tc := range []struct {
		r        Ratio
		has, out bool
		text     string
	}{
		{Ratio{Value: 0.98}, false, false, "0.980"},
		{Ratio{0.98, 0.97, 0.99}, true, true, "0.980 (0.970–0.990)"},
		{Ratio{1.02, 1.001, 1.04}, true, true, "1.020 (1.001–1.040)"},
		{Ratio{0.99, 0.97, 1.01}, true, false, "0.990 (0.970–1.010)"},
		{Ratio{1, 1, 1}, true, false, "1.000"},
		{Ratio{Value: math.NaN()}, false, false, "–"},
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
	tiny2 := tinyScenario()
	tiny2.Name, tiny2.Gen.Load = "tiny2", 0.4
	c.Scenarios = append(c.Scenarios, tiny2)
	r, err := Evaluate(context.Background(), c)
	if err != nil {
		t.Fatal(err)
	}
	sr := r.Scenarios[0]
	if got := sr.Policies[0]; got.MeanVsRef != (Ratio{1, 1, 1}) || got.SmallP99VsRef != (Ratio{1, 1, 1}) {
		t.Errorf("reference's own ratios %+v and %+v, want exactly 1", got.MeanVsRef, got.SmallP99VsRef)
	}
	low := sr.Policies[1]
	for _, m := range []Ratio{low.MeanVsRef, low.SmallP99VsRef} {
		if !(m.Lo < m.Value && m.Value < m.Hi) || math.Abs((m.Lo+m.Hi)/2-m.Value) > 1e-12 {
			t.Errorf("low's ratio %+v: not an interval around its value", m)
		}
	}
	if low.MeanVsRef.Value != r.NormalizedMeanSlowdown(0, 1) {
		t.Errorf("low's mean ratio %v, normalized mean slowdown %v", low.MeanVsRef.Value, r.NormalizedMeanSlowdown(0, 1))
	}
	g := r.GeoMeanVsRef
	if want := math.Sqrt(r.NormalizedMeanSlowdown(0, 1) * r.NormalizedMeanSlowdown(1, 1)); len(g) != 2 || g[0] != (Ratio{1, 1, 1}) ||
		math.Abs(g[1].Value-want) > 1e-12 || !(g[1].Lo < g[1].Value && g[1].Value < g[1].Hi) {
		t.Errorf("geometric means %+v, want 1 and %v with an interval", g, want)
	}
	var md, js bytes.Buffer
	if err := r.WriteMarkdown(&md); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"| mean slowdown / static (95 % CI) | p99 ≤100KB / static (95 % CI) |",
		"95 % intervals from the variation between seeds (delete-one-seed jackknife, Student's t with 2 degrees of freedom)",
		" | " + fratio(low.MeanVsRef) + " | " + fratio(low.SmallP99VsRef) + " | ",
		"| geometric mean | 1.000 | " + fratio(g[1]) + " |\n"} {
		if !strings.Contains(md.String(), want) {
			t.Errorf("markdown lacks %q:\n%s", want, md.String())
		}
	}
	if err := r.WriteJSON(&js); err != nil {
		t.Fatal(err)
	}
	var m struct {
		Level     float64     `json:"ci_level"`
		GeoMean   []float64   `json:"geomean_mean_slowdown_vs_reference"`
		GeoMeanCI [][]float64 `json:"geomean_mean_slowdown_vs_reference_ci"`
		Scenarios []struct {
			Policies []struct {
				NormCI  []float64 `json:"mean_slowdown_vs_reference_ci"`
				SmallCI []float64 `json:"slowdown_p99_small_vs_reference_ci"`
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
	if !slices.Equal(m.GeoMean, []float64{1, g[1].Value}) || len(m.GeoMeanCI) != 2 || !slices.Equal(m.GeoMeanCI[1], []float64{g[1].Lo, g[1].Hi}) {
		t.Errorf("json geometric means %v, intervals %v", m.GeoMean, m.GeoMeanCI)
	}
}

// TestGeoMeans checks the geometric mean's interval against a hand
// computation: over two scenarios where the policy's ratios are 0.5 and 2,
// leaving out each of three seeds gives 0.5, 0.5, 0.5 on the first and 1, 2
// and 4 on the second, so the geometric means leaving out each seed are
// sqrt(0.5), 1 and sqrt(2).
func TestGeoMeans(t *testing.T) {
	pol := func(name string, mean float64, loo ...float64) PolicyResult {
		pr := PolicyResult{Policy: name, meanLOO: loo}
		pr.Summary.Slowdown.Mean = mean
		return pr
	}
	r := &EvalReport{Reference: "ref", Policies: []string{"ref", "p", "q"}, Seeds: []uint64{1, 2, 3},
		Scenarios: []ScenarioResult{
			{Policies: []PolicyResult{pol("ref", 2, 1, 1, 1), pol("p", 1, 0.5, 0.5, 0.5), pol("q", 3)}},
			{Policies: []PolicyResult{pol("ref", 2, 1, 1, 1), pol("p", 4, 1, 2, 4), pol("q", 3, 1.5, 1.5, 1.5)}},
		}}
	r.setGeoMeans()
	g := []float64{math.Sqrt(0.5), 1, math.Sqrt(2)}
	m := (g[0] + g[1] + g[2]) / 3
	half := 4.302652729749462 * math.Sqrt(2.0/3*((g[0]-m)*(g[0]-m)+(g[1]-m)*(g[1]-m)+(g[2]-m)*(g[2]-m)))
	if got := r.GeoMeanVsRef[0]; got != (Ratio{1, 1, 1}) {
		t.Errorf("reference: %+v", got)
	}
	if got := r.GeoMeanVsRef[1]; math.Abs(got.Value-1) > 1e-12 || math.Abs(got.Lo-(1-half)) > 1e-9 || math.Abs(got.Hi-(1+half)) > 1e-9 {
		t.Errorf("p: %+v, want 1 ± %v", got, half)
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
