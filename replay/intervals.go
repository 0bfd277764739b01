package replay

import (
	"math"
	"slices"

	"gonum.org/v1/gonum/stat/distuv"
)

// An evaluation puts a confidence interval on every ratio of a policy's
// statistic to the reference policy's, from the variation between seeds:
// the delete-one-seed jackknife. With S seeds, the ratio is recomputed S
// times over the flows of all seeds but one (both policies on the same S-1
// traces), its standard error is
//
//	SE = sqrt((S-1)/S · Σ_k (θ_k - mean θ)²)
//
// and the interval is the ratio over all seeds ± t·SE, t the 97.5th
// percentile of Student's t with S-1 degrees of freedom. Seeds are the
// independent replicates: flows within one trace are not, since they share
// queues, incasts and the trace's mix of large flows ("Intervals" in the
// README measures how much that matters). With fewer than MinIntervalSeeds
// seeds there is no interval.

// MinIntervalSeeds is the fewest seeds an evaluation draws intervals from.
const MinIntervalSeeds = 3

// CILevel is the confidence level of an evaluation's intervals.
const CILevel = 0.95

// Ratio is a statistic of one policy divided by the reference policy's on
// the same traces (NaN where that is undefined: no flows of the kind), with
// the bounds of its interval at CILevel. Lo and Hi are 0 when there is no
// interval: fewer than MinIntervalSeeds seeds, or a seed without flows of
// the kind.
type Ratio struct {
	Value, Lo, Hi float64
}

// HasInterval reports whether r has an interval.
func (r Ratio) HasInterval() bool { return r.Hi > 0 }

// Excludes1 reports whether r has an interval and it lies wholly above or
// below 1: the two policies differ at the interval's level.
func (r Ratio) Excludes1() bool { return r.HasInterval() && (r.Lo > 1 || r.Hi < 1) }

// flowSample is what the intervals keep of one policy's runs on one
// scenario: per seed the sum of slowdowns, the number of completed flows
// and of those of at most SmallFlowBytes, and the largest slowdowns of the
// latter with their seeds, largest first: of each seed as many as the p99
// of all seeds reads from the top, which is as many as any set of seeds
// reads, so the sample stays about 1 % of the flows.
type flowSample struct {
	sum, n, smallN []float64
	small          []seedValue
}

type seedValue struct {
	v    float64
	seed int32
}

// newFlowSample gathers the FCT records of runs, one per seed.
func newFlowSample(runs [][]FCT) *flowSample {
	s := &flowSample{sum: make([]float64, len(runs)), n: make([]float64, len(runs)), smallN: make([]float64, len(runs))}
	for k, recs := range runs {
		for _, r := range recs {
			v := r.Slowdown()
			s.sum[k] += v
			s.n[k]++
			if r.Size <= SmallFlowBytes {
				s.smallN[k]++
				s.small = append(s.small, seedValue{v, int32(k)})
			}
		}
	}
	desc := func(x, y seedValue) int {
		switch {
		case x.v > y.v:
			return -1
		case x.v < y.v:
			return 1
		}
		return int(x.seed - y.seed)
	}
	slices.SortFunc(s.small, desc)
	// p99's index from the largest grows with the number of flows, so no
	// set of seeds reads deeper into a seed than all of them do.
	n := len(s.small)
	keep := fromTop(n) + 1
	kept, left := s.small[:0], make([]int, len(runs))
	for k := range left {
		left[k] = keep
	}
	for _, x := range s.small {
		if left[x.seed] > 0 {
			left[x.seed]--
			kept = append(kept, x)
		}
	}
	s.small = make([]seedValue, len(kept)) // and the whole list goes
	copy(s.small, kept)
	return s
}

// fromTop returns the index, counted from the largest, of the value that
// percentile(sorted, 0.99) returns among n values (n > 0); it never
// decreases as n grows.
func fromTop(n int) int { return n - 1 - min(int(float64(n)*0.99), n-1) }

// mean returns the mean slowdown of the flows of the seeds k with w[k] set;
// NaN without flows.
func (s *flowSample) mean(w []bool) float64 {
	var sum, n float64
	for k, in := range w {
		if in {
			sum += s.sum[k]
			n += s.n[k]
		}
	}
	if n == 0 {
		return math.NaN()
	}
	return sum / n
}

// smallP99 returns the p99 slowdown, as percentile computes it, of the
// flows of at most SmallFlowBytes of the seeds k with w[k] set; NaN
// without such flows. It walks down from the largest slowdown, so it reads
// about 1 % of the flows.
func (s *flowSample) smallP99(w []bool) float64 {
	n := 0
	for k, in := range w {
		if in {
			n += int(s.smallN[k])
		}
	}
	if n == 0 {
		return math.NaN()
	}
	d := fromTop(n)
	c := 0
	for _, x := range s.small {
		if w[x.seed] {
			if c == d {
				return x.v
			}
			c++
		}
	}
	return math.NaN() // unreachable: w's seeds hold n such flows
}

// jackknife returns the half-widths of the intervals of every policy's mean
// slowdown and small-flow p99 divided by those of samples[ref] (see the
// package's intervals above), NaN where a seed left out leaves a ratio
// undefined, and the mean slowdown ratios leaving out each seed in turn
// (for the geometric mean over scenarios, EvalReport.GeoMeanVsRef).
func jackknife(samples []*flowSample, ref int) (mean, small []float64, meanLOO [][]float64) {
	mean, small, meanLOO = make([]float64, len(samples)), make([]float64, len(samples)), make([][]float64, len(samples))
	for p, s := range samples {
		meanLOO[p] = leaveOneOut(s, samples[ref], (*flowSample).mean)
		mean[p] = jackknifeHalf(meanLOO[p])
		small[p] = jackknifeHalf(leaveOneOut(s, samples[ref], (*flowSample).smallP99))
	}
	return mean, small, meanLOO
}

// leaveOneOut returns, for each seed k, stat of p over every seed but k
// divided by stat of ref over the same seeds.
func leaveOneOut(p, ref *flowSample, stat func(*flowSample, []bool) float64) []float64 {
	seeds := len(ref.n)
	w := make([]bool, seeds)
	theta := make([]float64, seeds)
	for k := range seeds {
		for j := range w {
			w[j] = j != k
		}
		theta[k] = Normalize(stat(p, w), stat(ref, w))
	}
	return theta
}

// jackknifeHalf returns the half-width of the interval at CILevel of a
// statistic whose values leaving out each of len(theta) seeds are theta:
// t·sqrt((S-1)/S · Σ(θ_k - mean θ)²), NaN if a value is, and 0 if every
// value is the same.
func jackknifeHalf(theta []float64) float64 {
	if !slices.ContainsFunc(theta, func(v float64) bool { return v != theta[0] }) {
		return 0 // exactly, not the rounding of a mean (the reference's own)
	}
	n := float64(len(theta))
	m := 0.0
	for _, v := range theta {
		m += v / n
	}
	ss := 0.0
	for _, v := range theta {
		ss += (v - m) * (v - m)
	}
	t := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: n - 1}.Quantile((1 + CILevel) / 2)
	return t * math.Sqrt((n-1)/n*ss)
}

// withHalf returns the ratio v with the interval v ± half, or without an
// interval if that is undefined.
func withHalf(v, half float64) Ratio {
	r := Ratio{Value: v}
	if lo, hi := v-half, v+half; hi > 0 && !math.IsNaN(lo) && !math.IsNaN(hi) {
		r.Lo, r.Hi = lo, hi
	}
	return r
}
