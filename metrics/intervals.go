package metrics

import (
	"cmp"
	"graphcc/trace"
	"math"
	"slices"

	"gonum.org/v1/gonum/stat/distuv"
)

// An evaluation puts a confidence interval on every ratio of a policy's
// statistic to the reference policy's, from the variation between seeds:
// the delete-one-seed jackknife on the log scale. With S seeds, the ratio
// is recomputed S times over the flows of all seeds but one (both policies
// on the same S-1 traces), giving θ_k; the standard error of its logarithm
// is
//
//	SE = sqrt((S-1)/S · Σ_k (log θ_k - mean log θ)²)
//
// and the interval is the ratio over all seeds times exp(±t·SE), t the
// 97.5th percentile of Student's t with S-1 degrees of freedom (until
// 2026-12-05 it was the ratio ± t·SE of θ itself, which three seeds could
// carry below 0). Seeds are the
// independent replicates: flows within one trace are not, since they share
// queues, incasts and the trace's mix of large flows ("Intervals" in
// docs/learning.md measures how much that matters). With fewer than MinIntervalSeeds
// seeds there is no interval, nor on a percentile whose tail holds fewer
// than MinTailPerSeed flows per seed.

// MinIntervalSeeds is the fewest seeds an evaluation draws intervals from.
const MinIntervalSeeds = 3

// CILevel is the confidence level of an evaluation's intervals.
const CILevel = 0.95

// Ratio is a statistic of one policy divided by the reference policy's on
// the same traces (NaN where that is undefined: no flows of the kind), with
// the bounds of its interval at CILevel. Lo and Hi are 0 when there is no
// interval: fewer than MinIntervalSeeds seeds, a seed without flows of the
// kind, or a percentile with too thin a tail (MinTailPerSeed).
type Ratio struct {
	Value, Lo, Hi float64
}

// HasInterval reports whether r has an interval.
func (r Ratio) HasInterval() bool { return r.Hi > 0 }

// Excludes1 reports whether r has an interval and it lies wholly above or
// below 1: the two policies differ at the interval's level.
func (r Ratio) Excludes1() bool { return r.HasInterval() && (r.Lo > 1 || r.Hi < 1) }

// Jackknife holds one policy's statistics on one scenario leaving out each
// seed in turn: entry k of each is over the flows of every seed but k. They
// are all the intervals need of a policy's flows: the leave-one-out ratio
// of two policies is the ratio of their leave-one-out statistics.
type Jackknife struct {
	Mean []float64
	// smallP99 is the p99 of small flows; nil if its tail is too thin
	// for an interval (thinTail), as are the bins' percentiles.
	SmallP99 []float64
	// throughput is the mean over flows of size/FCT, Gbps (as
	// MeanThroughputGbps); queue the mean over seeds of each run's mean
	// queue (as the merged Summary's QueueBytesMean).
	Throughput, Queue []float64
	// bins holds, per figure bin, the median, p95 and p99.
	Bins [][3][]float64
	// PhaseMean holds, per phase of a phased trace (NewJackknife's
	// phases), the mean slowdown of the flows that start in it; nil
	// without phases.
	PhaseMean [][]float64
}

// seedValue is a flow's slowdown and the seed of its run.
type seedValue struct {
	v    float64
	seed int32
}

// NewJackknife computes the statistics of runs (the FCT records of each
// seed, in seed order; queues, each run's mean queue) leaving out each seed
// in turn, for the size bins bins (upper bounds, as SlowdownBySize takes
// them) and the phases of phases (the zero Phases: none).
func NewJackknife(runs [][]trace.FCT, queues []float64, bins []int64, phases Phases) *Jackknife {
	seeds := len(runs)
	l := &Jackknife{Bins: make([][3][]float64, len(bins))}
	psum, pn := make([][]float64, len(phases.Starts)), make([][]float64, len(phases.Starts))
	for i := range psum {
		psum[i], pn[i] = make([]float64, seeds), make([]float64, seeds)
	}
	// Count first, so that each list is allocated once at its size.
	binOf := func(size int64) int {
		b, _ := slices.BinarySearch(bins, size)
		return b // len(bins): in no bin
	}
	nSmall, nBin := 0, make([]int, len(bins)+1)
	for _, recs := range runs {
		for _, r := range recs {
			if r.Size <= SmallFlowBytes {
				nSmall++
			}
			nBin[binOf(r.Size)]++
		}
	}
	small := make([]seedValue, 0, nSmall)
	byBin := make([][]seedValue, len(bins))
	for b := range byBin {
		byBin[b] = make([]seedValue, 0, nBin[b])
	}
	sum, n := make([]float64, seeds), make([]float64, seeds)
	tput, tn := make([]float64, seeds), make([]float64, seeds)
	for k, recs := range runs {
		for _, r := range recs {
			v := r.Slowdown()
			sum[k] += v
			n[k]++
			if r.FCT > 0 {
				tput[k] += r.ThroughputGbps()
				tn[k]++
			}
			if len(psum) > 0 {
				i := phases.Index(r.Start)
				psum[i][k] += v
				pn[i][k]++
			}
			x := seedValue{v, int32(k)}
			if r.Size <= SmallFlowBytes {
				small = append(small, x)
			}
			if b := binOf(r.Size); b < len(bins) {
				byBin[b] = append(byBin[b], x)
			}
		}
	}
	l.Mean, l.Throughput = looMeans(sum, n), looMeans(tput, tn)
	l.Queue = looMeans(queues, slices.Repeat([]float64{1}, len(queues)))
	for i := range psum {
		l.PhaseMean = append(l.PhaseMean, looMeans(psum[i], pn[i]))
	}
	// nil where the tail is too thin for an interval
	pct := func(vals []seedValue, q float64) []float64 {
		if thinTail(len(vals), seeds, q) {
			return nil
		}
		return looPercentiles(vals, seeds, q)
	}
	sortSeedValues(small)
	l.SmallP99 = pct(small, 0.99)
	for b, vals := range byBin {
		sortSeedValues(vals)
		for i, q := range [3]float64{0.5, 0.95, 0.99} {
			l.Bins[b][i] = pct(vals, q)
		}
	}
	return l
}

// looMeans returns, for each seed k, the sum of sum over the other seeds
// divided by the sum of n over them; NaN where that is 0.
func looMeans(sum, n []float64) []float64 {
	var total, count float64
	for k := range sum {
		total += sum[k]
		count += n[k]
	}
	out := make([]float64, len(sum))
	for k := range out {
		out[k] = math.NaN()
		if c := count - n[k]; c > 0 {
			out[k] = (total - sum[k]) / c
		}
	}
	return out
}

// sortSeedValues sorts vals by increasing slowdown (the order of equal
// slowdowns does not change a percentile).
func sortSeedValues(vals []seedValue) {
	slices.SortFunc(vals, func(x, y seedValue) int { return cmp.Compare(x.v, y.v) })
}

// MinTailPerSeed is the fewest values per seed an evaluation wants beyond
// a percentile (below it, for one under the median) before it puts an
// interval on it: a percentile of n values over S seeds gets one only if
// MinTailPerSeed·S values lie beyond the one it picks. With a thinner
// tail, leaving a seed out mostly does not move the percentile, and the
// intervals come out too narrow: on synthetic seeds (TestPercentileCoverage) the 95 % interval of
// a p99 ratio held the true ratio in 84 to 92 % of trials with 0.1 to 0.5
// values per seed beyond it, and in 91 to 96 % with one or more.
const MinTailPerSeed = 1

// thinTail reports whether the q-th percentile of n values over seeds
// seeds has fewer than MinTailPerSeed values per seed beyond it.
func thinTail(n, seeds int, q float64) bool {
	if n == 0 {
		return true
	}
	i := PercentileIndex(n, q) // the values below it
	if q >= 0.5 {
		i = n - 1 - i // the values above it
	}
	return i < MinTailPerSeed*seeds
}

// looPercentiles returns, for each of seeds seeds k, the q-th percentile
// (as percentile computes it) of vals, sorted by sortSeedValues, without
// the values of seed k; NaN where none is left.
func looPercentiles(vals []seedValue, seeds int, q float64) []float64 {
	per := make([]int, seeds)
	for _, x := range vals {
		per[x.seed]++
	}
	out := make([]float64, seeds)
	for k := range seeds {
		n := len(vals) - per[k]
		out[k] = math.NaN()
		if n == 0 {
			continue
		}
		i := PercentileIndex(n, q)
		// Walk from the nearer end, skipping seed k's values.
		if i < n/2 {
			for _, x := range vals {
				if int(x.seed) != k {
					if i == 0 {
						out[k] = x.v
						break
					}
					i--
				}
			}
			continue
		}
		d := n - 1 - i
		for j := len(vals) - 1; j >= 0; j-- {
			if x := vals[j]; int(x.seed) != k {
				if d == 0 {
					out[k] = x.v
					break
				}
				d--
			}
		}
	}
	return out
}

// JackknifeRatios returns p's leave-one-out values divided by ref's: the
// leave-one-out values of the ratio, whose spread jackknifeHalf turns into
// an interval.
func JackknifeRatios(p, ref []float64) []float64 {
	out := make([]float64, len(ref))
	for k := range out {
		out[k] = Normalize(p[k], ref[k])
	}
	return out
}

// jackknifeHalf returns the half-width of the interval at CILevel of a
// statistic whose values leaving out each of len(theta) seeds are theta:
// t·sqrt((S-1)/S · Σ(θ_k - mean θ)²), NaN if a value is or there is none,
// and 0 if every value is the same.
func jackknifeHalf(theta []float64) float64 {
	if len(theta) == 0 {
		return math.NaN()
	}
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

// LogInterval returns the ratio v with its interval from the leave-one-out
// values of its logarithm, logTheta: v·exp(±h), h the jackknifeHalf of
// logTheta. A ratio is judged on the log scale, where r and 1/r lie equally
// far from 1, so the interval is asymmetric about v and never reaches 0
// (on the ratio's own scale three seeds could give 0.50 (-0.20–1.20)). No
// interval if v is not positive and finite or a value is NaN or infinite.
func LogInterval(v float64, logTheta []float64) Ratio {
	r := Ratio{Value: v}
	if !(v > 0) || math.IsInf(v, 0) || len(logTheta) == 0 {
		return r
	}
	h := jackknifeHalf(logTheta)
	if math.IsNaN(h) || math.IsInf(h, 0) {
		return r
	}
	r.Lo, r.Hi = v*math.Exp(-h), v*math.Exp(h)
	return r
}

// Logs returns the logarithms of theta (NaN for a value not positive).
func Logs(theta []float64) []float64 {
	out := make([]float64, len(theta))
	for k, x := range theta {
		out[k] = math.NaN()
		if x > 0 {
			out[k] = math.Log(x)
		}
	}
	return out
}
