package replay

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"graphcc/topo"
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

// TestLOOStats: leaving out any one seed, the statistics are those of the
// records of the other seeds (the percentiles exactly as SlowdownStats and
// SlowdownBySize compute them).
func TestLOOStats(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 7))
	bins := FigureBins()
	for _, sizes := range [][]int{{1, 1}, {1, 2, 3}, {99, 100, 101}, {1000, 4321, 7, 250}, {0, 5, 50}, {3000, 2500, 4000}} {
		runs := make([][]FCT, len(sizes))
		for k, n := range sizes {
			runs[k] = intervalRecs(r, n)
		}
		queues := make([]float64, len(runs))
		for k := range queues {
			queues[k] = 1000 * r.Float64()
		}
		l := newLOOStats(runs, queues, bins)
		every := slices.Concat(runs...)
		for k := range runs {
			var recs []FCT
			for j := range runs {
				if j != k {
					recs = append(recs, runs[j]...)
				}
			}
			all := SlowdownStats(recs, nil)
			if got := l.mean[k]; len(recs) == 0 && !math.IsNaN(got) || len(recs) > 0 && math.Abs(got-all.Mean) > 1e-12*all.Mean {
				t.Errorf("sizes %v without seed %d: mean %v, want %v", sizes, k, got, all.Mean)
			}
			if got, want := l.throughput[k], MeanThroughputGbps(recs); len(recs) == 0 && !math.IsNaN(got) || len(recs) > 0 && math.Abs(got-want) > 1e-12*want {
				t.Errorf("sizes %v without seed %d: throughput %v, want %v", sizes, k, got, want)
			}
			q := 0.0
			for j, v := range queues {
				if j != k {
					q += v / float64(len(queues)-1)
				}
			}
			if got := l.queue[k]; math.Abs(got-q) > 1e-12*q {
				t.Errorf("sizes %v without seed %d: queue %v, want %v", sizes, k, got, q)
			}
			// loo is nil where the tail over every seed's n flows is too
			// thin for an interval
			same := func(what string, loo []float64, n int, q float64, want Stats, pick float64) {
				t.Helper()
				if thin := thinTail(n, len(runs), q); thin != (loo == nil) {
					t.Fatalf("sizes %v: %s of %d flows: thin tail %v, but leave-one-out values %v", sizes, what, n, thin, loo)
				}
				if loo == nil {
					return
				}
				got := loo[k]
				if want.Count == 0 {
					if !math.IsNaN(got) {
						t.Errorf("sizes %v without seed %d: %s %v without flows", sizes, k, what, got)
					}
				} else if got != pick {
					t.Errorf("sizes %v without seed %d: %s %v, want %v", sizes, k, what, got, pick)
				}
			}
			isSmall := func(f FCT) bool { return f.Size <= SmallFlowBytes }
			small := SlowdownStats(recs, isSmall)
			same("small p99", l.smallP99, SlowdownStats(every, isSmall).Count, 0.99, small, small.P99)
			allBins := SlowdownBySize(every, bins)
			for b, st := range SlowdownBySize(recs, bins) {
				n := allBins[b].Count
				same(fmt.Sprintf("bin %d median", b), l.bins[b][0], n, 0.5, st, st.P50)
				same(fmt.Sprintf("bin %d p95", b), l.bins[b][1], n, 0.95, st, st.P95)
				same(fmt.Sprintf("bin %d p99", b), l.bins[b][2], n, 0.99, st, st.P99)
			}
		}
	}
}

// oneFlowSeeds returns the statistics of one small flow per seed, of the
// given slowdowns.
func oneFlowSeeds(slowdowns ...float64) *looStats {
	runs := make([][]FCT, len(slowdowns))
	for k, v := range slowdowns {
		runs[k] = []FCT{{Size: 1000, Standalone: 1000, FCT: int64(1000 * v)}}
	}
	return newLOOStats(runs, make([]float64, len(runs)), FigureBins())
}

// TestJackknife checks the half-widths against a hand computation: with
// the reference at 2 on each of three seeds and the policy at 2, 4 and 6,
// the mean ratios leaving out one seed are 2.5, 2 and 1.5, SE = sqrt(2/3 ·
// 0.5) and t(2 df) = 4.302653.
func TestJackknife(t *testing.T) {
	ref, p, q := oneFlowSeeds(2, 2, 2), oneFlowSeeds(2, 4, 6), oneFlowSeeds(4, 8, 12)
	if got := looRatios(p.mean, ref.mean); !slices.Equal(got, []float64{2.5, 2, 1.5}) {
		t.Errorf("mean ratios leaving out each seed: %v", got)
	}
	want := 4.302652729749462 * math.Sqrt(2.0/3*0.5)
	for _, tc := range []struct {
		p    *looStats
		want float64
	}{{ref, 0}, {p, want}, {q, 2 * want}} {
		if h := jackknifeHalf(looRatios(tc.p.mean, ref.mean)); math.Abs(h-tc.want) > 1e-9 {
			t.Errorf("mean half-width %v, want %v", h, tc.want)
		}
	}
	// One flow per seed: the p99 of the seeds left is their largest, so
	// the ratios leaving out one seed are 3, 3 and 2. (An evaluation puts
	// no interval on a tail this thin: thinTail.)
	if p.smallP99 != nil || ref.smallP99 != nil {
		t.Errorf("one flow per seed: leave-one-out p99s %v and %v, want none", p.smallP99, ref.smallP99)
	}
	p99s := func(slowdowns ...float64) []float64 {
		vals := make([]seedValue, len(slowdowns))
		for k, v := range slowdowns {
			vals[k] = seedValue{v, int32(k)}
		}
		sortSeedValues(vals)
		return looPercentiles(vals, len(vals), 0.99)
	}
	wantSmall := 4.302652729749462 * math.Sqrt(2.0/3*(1.0/9+1.0/9+4.0/9))
	if h := jackknifeHalf(looRatios(p99s(2, 4, 6), p99s(2, 2, 2))); math.Abs(h-wantSmall) > 1e-9 {
		t.Errorf("small p99 half-width %v, want %v", h, wantSmall)
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
	big := newLOOStats([][]FCT{{{Size: 1e6, Standalone: 1, FCT: 2}}, {{Size: 1e6, Standalone: 1, FCT: 3}}, {{Size: 1e6, Standalone: 1, FCT: 4}}}, make([]float64, 3), FigureBins())
	if big.smallP99 != nil {
		t.Errorf("no small flows: leave-one-out p99s %v", big.smallP99)
	}
	if h := jackknifeHalf(looRatios(p99s(), p99s())); !math.IsNaN(h) {
		t.Errorf("no values: half-width %v, want NaN", h)
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
		mean := func(runs [][]FCT) float64 {
			var all []FCT
			for _, r := range runs {
				all = append(all, r...)
			}
			return SlowdownStats(all, nil).Mean
		}
		noQueue := make([]float64, 5)
		ref, same, slower := newLOOStats(runs[0], noQueue, nil), newLOOStats(runs[1], noQueue, nil), newLOOStats(runs[2], noQueue, nil)
		v, h := mean(runs[1])/mean(runs[0]), jackknifeHalf(looRatios(same.mean, ref.mean))
		if v-h <= 1 && 1 <= v+h {
			held++
		}
		if v, h = mean(runs[2])/mean(runs[0]), jackknifeHalf(looRatios(slower.mean, ref.mean)); v-h > 1 {
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
	// 4 ms of arrivals: enough small flows for the p99's interval
	// (MinTailPerSeed)
	c.Scenarios[0].Gen.Duration = 4 * topo.Millisecond
	tiny2 := c.Scenarios[0]
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
		// symmetric on the log scale: Lo·Hi = Value²
		if !(0 < m.Lo && m.Lo < m.Value && m.Value < m.Hi) || math.Abs(m.Lo*m.Hi/(m.Value*m.Value)-1) > 1e-12 {
			t.Errorf("low's ratio %+v: not an interval around its value, symmetric in log", m)
		}
	}
	for _, tc := range []struct {
		got       Ratio
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
		for i, get := range [3]func(Stats) float64{
			func(s Stats) float64 { return s.P50 }, func(s Stats) float64 { return s.P95 }, func(s Stats) float64 { return s.P99 },
		} {
			got, self := [3]Ratio{br.P50, br.P95, br.P99}[i], [3]Ratio{refBin.P50, refBin.P95, refBin.P99}[i]
			if rs.Count == 0 || ls.Count == 0 {
				if !math.IsNaN(got.Value) || got.HasInterval() {
					t.Errorf("bin %d, statistic %d, without flows: %+v", b, i, got)
				}
				continue
			}
			if self.Value != 1 || self.HasInterval() && self != (Ratio{1, 1, 1}) || got.Value != get(ls)/get(rs) {
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
	if want := math.Sqrt(r.NormalizedMeanSlowdown(0, 1) * r.NormalizedMeanSlowdown(1, 1)); len(g) != 2 || g[0] != (Ratio{1, 1, 1}) ||
		math.Abs(g[1].Value-want) > 1e-12 || !(g[1].Lo < g[1].Value && g[1].Value < g[1].Hi) {
		t.Errorf("geometric means %+v, want 1 and %v with an interval", g, want)
	}
	var md, js bytes.Buffer
	if err := r.WriteMarkdown(&md); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"| mean slowdown / static (95 % CI) | p99 ≤100KB / static (95 % CI) |",
		"95 % intervals from the variation between seeds (delete-one-seed jackknife of the ratio's logarithm, Student's t with 2 degrees of freedom)",
		" | " + fratio(low.MeanVsRef) + " | " + fratio(low.SmallP99VsRef) + " | ",
		"| geometric mean | 1.000 | " + fratio(g[1]) + " |\n",
		"| " + sr.Scenario.Name + " | 1.000 | " + fratio(low.MeanVsRef) + " |\n"} {
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
	if len(p.Bins) != len(FigureBins()) {
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
	// mean 0; sqrt(2/3 · 2·(ln2/2)²) = ln2/sqrt(3)
	half := 4.302652729749462 * math.Ln2 / math.Sqrt(3)
	if got := r.GeoMeanVsRef[0]; got != (Ratio{1, 1, 1}) {
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

// BenchmarkLOOStats is what the intervals add to an evaluation for one
// policy on one scenario: 10 seeds of 390,000 flows each, about the
// GoogleRPC scenario's.
func BenchmarkLOOStats(b *testing.B) {
	r := rand.New(rand.NewPCG(12, 12))
	runs := make([][]FCT, 10)
	for k := range runs {
		runs[k] = intervalRecs(r, 390_000)
		for i := range runs[k] {
			runs[k][i].FCT += int64(r.IntN(1000)) // distinct slowdowns
		}
	}
	bins := FigureBins()
	for b.Loop() {
		newLOOStats(runs, make([]float64, len(runs)), bins)
	}
}

// TestLogInterval: the interval of a ratio is symmetric on the log scale,
// stays above 0 however wide, is exactly the value when the leave-one-out
// values agree, and is absent when a value is not a positive number.
func TestLogInterval(t *testing.T) {
	wide := logInterval(0.5, logs([]float64{0.2, 0.5, 1.2}))
	if !(wide.Lo > 0 && wide.Lo < 0.5 && wide.Hi > 0.5) || math.Abs(wide.Lo*wide.Hi-0.25) > 1e-12 {
		t.Errorf("wide: %+v, want 0 < Lo < 0.5 < Hi and Lo·Hi = 0.25", wide)
	}
	// h = t₂ · sqrt(2/3 · Σ(log θ - mean)²) for θ = 0.5, 1, 2
	h := 4.302652729749462 * math.Sqrt(2.0/3*2*math.Ln2*math.Ln2)
	if got := logInterval(1, logs([]float64{0.5, 1, 2})); math.Abs(got.Lo-math.Exp(-h)) > 1e-12 || math.Abs(got.Hi-math.Exp(h)) > 1e-9 {
		t.Errorf("0.5, 1, 2: %+v, want exp(±%v)", got, h)
	}
	if got := logInterval(0.7, logs([]float64{0.7, 0.7, 0.7})); got != (Ratio{0.7, 0.7, 0.7}) {
		t.Errorf("no spread: %+v", got)
	}
	for _, tc := range []struct {
		v     float64
		theta []float64
	}{
		{0, []float64{1, 1, 1}},
		{math.NaN(), []float64{1, 1, 1}},
		{math.Inf(1), []float64{1, 1, 1}},
		{1, []float64{1, 0, 1}},
		{1, []float64{1, math.NaN(), 1}},
		{1, nil},
	} {
		if got := logInterval(tc.v, logs(tc.theta)); got.HasInterval() {
			t.Errorf("%v of %v: interval %+v, want none", tc.v, tc.theta, got)
		}
	}
}

// TestThinTail: a percentile gets an interval only with MinTailPerSeed
// values per seed beyond it.
func TestThinTail(t *testing.T) {
	for _, tc := range []struct {
		n, seeds int
		q        float64
		thin     bool
	}{
		{1010, 10, 0.99, false}, // the p99 is value 999: 10 beyond it, one per seed
		{1000, 10, 0.99, true},  // value 990: 9 beyond
		{95, 10, 0.5, false},    // the median of a sparse bin: 47 above it
		{95, 10, 0.95, true},
		{210, 10, 0.95, false},
		{100, 10, 0.9, true}, // 9 above value 90, however 100·0.1 rounds
		{7, 3, 0.5, false},   // 3 above the median: one per seed
		{6, 3, 0.5, true},
		{5, 3, 0.01, true}, // a low percentile counts the values below it
		{300, 3, 0.01, false},
		{0, 3, 0.5, true},
	} {
		if got := thinTail(tc.n, tc.seeds, tc.q); got != tc.thin {
			t.Errorf("%d values over %d seeds, q %v: thin %v, want %v", tc.n, tc.seeds, tc.q, got, tc.thin)
		}
	}
}

// TestPercentileCoverage: on seeds drawn independently (lognormal
// slowdowns, each seed's scaled by its own factor, as traces differ), the
// 95 % interval of the ratio of two policies' p99s, whose true value is 1,
// holds 1 in about 95 % of 400 evaluations of 10 seeds when the tail has
// one or three values per seed, as MinTailPerSeed asks.
func TestPercentileCoverage(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 3))
	const seeds, trials, q = 10, 400, 0.99
	for _, perSeed := range []int{101, 301} { // 1 and 3 per seed beyond the p99
		if thinTail(perSeed*seeds, seeds, q) {
			t.Fatalf("%d values per seed: no interval", perSeed)
		}
		held := 0
		for range trials {
			var loo [2][]float64
			var full [2]float64
			for p := range 2 {
				vals := make([]seedValue, 0, perSeed*seeds)
				for k := range seeds {
					scale := math.Exp(0.1 * r.NormFloat64())
					for range perSeed {
						vals = append(vals, seedValue{scale * math.Exp(r.NormFloat64()), int32(k)})
					}
				}
				sortSeedValues(vals)
				loo[p] = looPercentiles(vals, seeds, q)
				full[p] = vals[PercentileIndex(len(vals), q)].v
			}
			if iv := logInterval(full[0]/full[1], logs(looRatios(loo[0], loo[1]))); iv.Lo <= 1 && 1 <= iv.Hi {
				held++
			}
		}
		cov := float64(held) / trials
		t.Logf("%d values per seed (%.0f beyond the p99): coverage %.3f", perSeed, float64(perSeed)*(1-q), cov)
		if cov < 0.9 || cov > 0.99 {
			t.Errorf("%d values per seed: the 95 %% interval held the true ratio in %.1f %% of trials", perSeed, 100*cov)
		}
	}
}
