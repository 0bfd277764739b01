package metrics

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"graphcc/topo"
	"graphcc/trace"
)

// intervalRecs returns n random FCT records, about half of them small
// flows, with slowdowns from 1 to about 30 and many ties.
func intervalRecs(r *rand.Rand, n int) []trace.FCT {
	out := make([]trace.FCT, n)
	for i := range out {
		out[i] = trace.FCT{Size: int64(1000 + r.IntN(200_000)), Standalone: 1000,
			FCT: 1000 + int64(r.IntN(30))*1000*int64(r.IntN(2))}
	}
	return out
}

// TestLOOStats: leaving out any one seed, the statistics are those of the
// records of the other seeds (the percentiles exactly as SlowdownStats and
// SlowdownBySize compute them).
func TestLOOStats(t *testing.T) {
	r, starts := rand.New(rand.NewPCG(7, 7)), rand.New(rand.NewPCG(7, 8))
	bins := FigureBins()
	// the last phase has no flows
	ph := Phases{Origin: phasedOrigin, Starts: []int64{0, topo.Millisecond, 2500 * topo.Microsecond, 5 * topo.Millisecond}}
	for _, sizes := range [][]int{{1, 1}, {1, 2, 3}, {99, 100, 101}, {1000, 4321, 7, 250}, {0, 5, 50}, {3000, 2500, 4000}} {
		runs := make([][]trace.FCT, len(sizes))
		for k, n := range sizes {
			runs[k] = intervalRecs(r, n)
			for i := range runs[k] { // starts over 3 ms, from a stream of their own
				runs[k][i].Start = phasedOrigin + starts.Int64N(3*topo.Millisecond)
			}
		}
		queues := make([]float64, len(runs))
		for k := range queues {
			queues[k] = 1000 * r.Float64()
		}
		l := NewJackknife(runs, queues, bins, ph)
		every := slices.Concat(runs...)
		for k := range runs {
			var recs []trace.FCT
			for j := range runs {
				if j != k {
					recs = append(recs, runs[j]...)
				}
			}
			all := SlowdownStats(recs, nil)
			if got := l.Mean[k]; len(recs) == 0 && !math.IsNaN(got) || len(recs) > 0 && math.Abs(got-all.Mean) > 1e-12*all.Mean {
				t.Errorf("sizes %v without seed %d: mean %v, want %v", sizes, k, got, all.Mean)
			}
			if got, want := l.Throughput[k], MeanThroughputGbps(recs); len(recs) == 0 && !math.IsNaN(got) || len(recs) > 0 && math.Abs(got-want) > 1e-12*want {
				t.Errorf("sizes %v without seed %d: throughput %v, want %v", sizes, k, got, want)
			}
			q := 0.0
			for j, v := range queues {
				if j != k {
					q += v / float64(len(queues)-1)
				}
			}
			if got := l.Queue[k]; math.Abs(got-q) > 1e-12*q {
				t.Errorf("sizes %v without seed %d: queue %v, want %v", sizes, k, got, q)
			}
			if len(l.PhaseMean) != len(ph.Starts) {
				t.Fatalf("%d phases' means, want %d", len(l.PhaseMean), len(ph.Starts))
			}
			for i, st := range SlowdownByPhase(recs, ph) {
				got, want := l.PhaseMean[i][k], st.Slowdown.Mean
				if st.Slowdown.Count == 0 && !math.IsNaN(got) || st.Slowdown.Count > 0 && math.Abs(got-want) > 1e-12*want {
					t.Errorf("sizes %v without seed %d: phase %d mean %v, want %v (%d flows)", sizes, k, i, got, want, st.Slowdown.Count)
				}
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
			isSmall := func(f trace.FCT) bool { return f.Size <= SmallFlowBytes }
			small := SlowdownStats(recs, isSmall)
			same("small p99", l.SmallP99, SlowdownStats(every, isSmall).Count, 0.99, small, small.P99)
			allBins := SlowdownBySize(every, bins)
			for b, st := range SlowdownBySize(recs, bins) {
				n := allBins[b].Count
				same(fmt.Sprintf("bin %d median", b), l.Bins[b][0], n, 0.5, st, st.P50)
				same(fmt.Sprintf("bin %d p95", b), l.Bins[b][1], n, 0.95, st, st.P95)
				same(fmt.Sprintf("bin %d p99", b), l.Bins[b][2], n, 0.99, st, st.P99)
			}
		}
	}
}

// oneFlowSeeds returns the statistics of one small flow per seed, of the
// given slowdowns.
func oneFlowSeeds(slowdowns ...float64) *Jackknife {
	runs := make([][]trace.FCT, len(slowdowns))
	for k, v := range slowdowns {
		runs[k] = []trace.FCT{{Size: 1000, Standalone: 1000, FCT: int64(1000 * v)}}
	}
	return NewJackknife(runs, make([]float64, len(runs)), FigureBins(), Phases{})
}

// TestJackknife checks the half-widths against a hand computation: with
// the reference at 2 on each of three seeds and the policy at 2, 4 and 6,
// the mean ratios leaving out one seed are 2.5, 2 and 1.5, SE = sqrt(2/3 ·
// 0.5) and t(2 df) = 4.302653.
func TestJackknife(t *testing.T) {
	ref, p, q := oneFlowSeeds(2, 2, 2), oneFlowSeeds(2, 4, 6), oneFlowSeeds(4, 8, 12)
	if got := JackknifeRatios(p.Mean, ref.Mean); !slices.Equal(got, []float64{2.5, 2, 1.5}) {
		t.Errorf("mean ratios leaving out each seed: %v", got)
	}
	want := 4.302652729749462 * math.Sqrt(2.0/3*0.5)
	for _, tc := range []struct {
		p    *Jackknife
		want float64
	}{{ref, 0}, {p, want}, {q, 2 * want}} {
		if h := jackknifeHalf(JackknifeRatios(tc.p.Mean, ref.Mean)); math.Abs(h-tc.want) > 1e-9 {
			t.Errorf("mean half-width %v, want %v", h, tc.want)
		}
	}
	// One flow per seed: the p99 of the seeds left is their largest, so
	// the ratios leaving out one seed are 3, 3 and 2. (An evaluation puts
	// no interval on a tail this thin: thinTail.)
	if p.SmallP99 != nil || ref.SmallP99 != nil {
		t.Errorf("one flow per seed: leave-one-out p99s %v and %v, want none", p.SmallP99, ref.SmallP99)
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
	if h := jackknifeHalf(JackknifeRatios(p99s(2, 4, 6), p99s(2, 2, 2))); math.Abs(h-wantSmall) > 1e-9 {
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
	big := NewJackknife([][]trace.FCT{{{Size: 1e6, Standalone: 1, FCT: 2}}, {{Size: 1e6, Standalone: 1, FCT: 3}}, {{Size: 1e6, Standalone: 1, FCT: 4}}}, make([]float64, 3), FigureBins(), Phases{})
	if big.SmallP99 != nil {
		t.Errorf("no small flows: leave-one-out p99s %v", big.SmallP99)
	}
	if h := jackknifeHalf(JackknifeRatios(p99s(), p99s())); !math.IsNaN(h) {
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
		var runs [3][][]trace.FCT
		for range 5 {
			load := 1 + 3*r.Float64() // a seed's traffic: every flow of it slower or faster
			var a, b, c []trace.FCT
			for range 200 {
				f := trace.FCT{Size: 1000, Standalone: 1000}
				f.FCT = 1000 + int64(1000*load*r.ExpFloat64())
				a = append(a, f)
				f.FCT = 1000 + int64(1000*load*r.ExpFloat64())
				b = append(b, f)
				f.FCT = f.FCT * 11 / 10
				c = append(c, f)
			}
			runs[0], runs[1], runs[2] = append(runs[0], a), append(runs[1], b), append(runs[2], c)
		}
		mean := func(runs [][]trace.FCT) float64 {
			var all []trace.FCT
			for _, r := range runs {
				all = append(all, r...)
			}
			return SlowdownStats(all, nil).Mean
		}
		noQueue := make([]float64, 5)
		ref, same, slower := NewJackknife(runs[0], noQueue, nil, Phases{}), NewJackknife(runs[1], noQueue, nil, Phases{}), NewJackknife(runs[2], noQueue, nil, Phases{})
		v, h := mean(runs[1])/mean(runs[0]), jackknifeHalf(JackknifeRatios(same.Mean, ref.Mean))
		if v-h <= 1 && 1 <= v+h {
			held++
		}
		if v, h = mean(runs[2])/mean(runs[0]), jackknifeHalf(JackknifeRatios(slower.Mean, ref.Mean)); v-h > 1 {
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

// BenchmarkLOOStats is what the intervals add to an evaluation for one
// policy on one scenario: 10 seeds of 390,000 flows each, about the
// GoogleRPC scenario's.
func BenchmarkLOOStats(b *testing.B) {
	r := rand.New(rand.NewPCG(12, 12))
	runs := make([][]trace.FCT, 10)
	for k := range runs {
		runs[k] = intervalRecs(r, 390_000)
		for i := range runs[k] {
			runs[k][i].FCT += int64(r.IntN(1000)) // distinct slowdowns
		}
	}
	bins := FigureBins()
	for b.Loop() {
		NewJackknife(runs, make([]float64, len(runs)), bins, Phases{})
	}
}

// TestLogInterval: the interval of a ratio is symmetric on the log scale,
// stays above 0 however wide, is exactly the value when the leave-one-out
// values agree, and is absent when a value is not a positive number.
func TestLogInterval(t *testing.T) {
	wide := LogInterval(0.5, Logs([]float64{0.2, 0.5, 1.2}))
	if !(wide.Lo > 0 && wide.Lo < 0.5 && wide.Hi > 0.5) || math.Abs(wide.Lo*wide.Hi-0.25) > 1e-12 {
		t.Errorf("wide: %+v, want 0 < Lo < 0.5 < Hi and Lo·Hi = 0.25", wide)
	}
	// h = t₂ · sqrt(2/3 · Σ(log θ - mean)²) for θ = 0.5, 1, 2
	h := 4.302652729749462 * math.Sqrt(2.0/3*2*math.Ln2*math.Ln2)
	if got := LogInterval(1, Logs([]float64{0.5, 1, 2})); math.Abs(got.Lo-math.Exp(-h)) > 1e-12 || math.Abs(got.Hi-math.Exp(h)) > 1e-9 {
		t.Errorf("0.5, 1, 2: %+v, want exp(±%v)", got, h)
	}
	if got := LogInterval(0.7, Logs([]float64{0.7, 0.7, 0.7})); got != (Ratio{0.7, 0.7, 0.7}) {
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
		if got := LogInterval(tc.v, Logs(tc.theta)); got.HasInterval() {
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
			if iv := LogInterval(full[0]/full[1], Logs(JackknifeRatios(loo[0], loo[1]))); iv.Lo <= 1 && 1 <= iv.Hi {
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
