package experiment

import (
	"math"

	"graphcc/metrics"
)

// An evaluation measures every policy against its yardsticks
// (Config.Yardsticks) beside the one reference: the policies an operator
// would otherwise run (static; tuned:DIR, each scenario's own tuned
// constant; tuned:FILE, the one constant tuned over the whole suite) or
// an ideal. Issue 23's targets are stated against them: "never above 1.01
// of the global constant on any scenario, and never worse than static"
// read off WorstVsYardstick and AboveYardstick.

// YardstickRatios are a policy's ratios to one yardstick, on one scenario
// (PolicyResult.VsYardsticks) or as geometric means over the scenarios
// (Report.GeoMeanVsYardsticks), each with its interval as MeanVsRef's.
type YardstickRatios struct {
	// Mean is the mean slowdown divided by the yardstick's; SmallP99 the
	// p99 slowdown of flows of at most 100 KB divided by the yardstick's.
	Mean, SmallP99 metrics.Ratio
	// meanLOO and smallLOO are the ratios leaving out each seed in turn
	// (nil without intervals), which the geometric means' intervals need.
	meanLOO, smallLOO []float64
}

// jackRatio returns v, a statistic of one policy divided by another's on
// the same traces, with the interval of that ratio from the two
// policies' statistics leaving out each seed, p and ref (metrics.Jackknife);
// the value alone if either is nil (fewer than MinIntervalSeeds seeds, or a
// percentile's tail too thin: MinTailPerSeed).
func jackRatio(v float64, p, ref []float64) metrics.Ratio {
	if p == nil || ref == nil {
		return metrics.Ratio{Value: v}
	}
	return metrics.LogInterval(v, metrics.Logs(metrics.JackknifeRatios(p, ref)))
}

// yardstickRatios returns policy pr's ratios to yardstick yr on one
// scenario, with intervals from their statistics leaving out each seed,
// lp and ly (nil: no intervals).
func yardstickRatios(pr, yr *PolicyResult, lp, ly *metrics.Jackknife) YardstickRatios {
	mean := metrics.Normalize(pr.Summary.Slowdown.Mean, yr.Summary.Slowdown.Mean)
	small := metrics.Normalize(pr.SmallP99, yr.SmallP99)
	if lp == nil || ly == nil {
		return YardstickRatios{Mean: metrics.Ratio{Value: mean}, SmallP99: metrics.Ratio{Value: small}}
	}
	out := YardstickRatios{Mean: jackRatio(mean, lp.Mean, ly.Mean), SmallP99: jackRatio(small, lp.SmallP99, ly.SmallP99)}
	out.meanLOO = metrics.JackknifeRatios(lp.Mean, ly.Mean)
	if lp.SmallP99 != nil && ly.SmallP99 != nil {
		out.smallLOO = metrics.JackknifeRatios(lp.SmallP99, ly.SmallP99)
	}
	return out
}

// setYardstickRatios sets every policy's ratios to the yardsticks (their
// indices in sr.Policies, yards) on sr, with their intervals from loos
// (each policy's statistics leaving out each seed) unless those are nil.
func setYardstickRatios(sr *ScenarioResult, yards []int, loos []*metrics.Jackknife) {
	if len(yards) == 0 {
		return
	}
	for p := range sr.Policies {
		pr := &sr.Policies[p]
		pr.VsYardsticks = make([]YardstickRatios, len(yards))
		for i, y := range yards {
			pr.VsYardsticks[i] = yardstickRatios(pr, &sr.Policies[y], loos[p], loos[y])
		}
	}
}

// geoMean returns the geometric mean of ratios, one per scenario, over
// those that are positive and finite (NaN if none is). It has an interval
// if every scenario has its ratio leaving out each of seeds seeds (loos,
// per scenario), all positive: the logarithm of the geometric mean leaving
// out seed k is the mean over the scenarios of log loos[s][k], each seed
// left out of every scenario at once, since scenarios drawn from the same
// seeds share traffic; metrics.LogInterval turns those into the interval.
func geoMean(ratios []float64, loos [][]float64, seeds int) metrics.Ratio {
	logSum, n := 0.0, 0
	for _, v := range ratios {
		if v > 0 && !math.IsInf(v, 1) {
			logSum += math.Log(v)
			n++
		}
	}
	if n == 0 {
		return metrics.Ratio{Value: math.NaN()}
	}
	g := math.Exp(logSum / float64(n))
	loo := make([]float64, seeds)
	for _, theta := range loos {
		if seeds == 0 || len(theta) != seeds {
			return metrics.Ratio{Value: g}
		}
		for k, v := range theta {
			if !(v > 0) {
				return metrics.Ratio{Value: g}
			}
			loo[k] += math.Log(v) / float64(len(loos))
		}
	}
	return metrics.LogInterval(g, loo) // loo holds log values already
}

// setYardstickGeoMeans sets r.GeoMeanVsYardsticks from every scenario's
// VsYardsticks.
func (r *Report) setYardstickGeoMeans() {
	if len(r.Yardsticks) == 0 {
		return
	}
	n := len(r.Scenarios)
	means, smalls := make([]float64, n), make([]float64, n)
	meanLOOs, smallLOOs := make([][]float64, n), make([][]float64, n)
	r.GeoMeanVsYardsticks = make([][]YardstickRatios, len(r.Yardsticks))
	for y := range r.Yardsticks {
		r.GeoMeanVsYardsticks[y] = make([]YardstickRatios, len(r.Policies))
		for p := range r.Policies {
			for s, sr := range r.Scenarios {
				yr := sr.Policies[p].VsYardsticks[y]
				means[s], smalls[s] = yr.Mean.Value, yr.SmallP99.Value
				meanLOOs[s], smallLOOs[s] = yr.meanLOO, yr.smallLOO
			}
			r.GeoMeanVsYardsticks[y][p] = YardstickRatios{
				Mean:     geoMean(means, meanLOOs, len(r.Seeds)),
				SmallP99: geoMean(smalls, smallLOOs, len(r.Seeds)),
			}
		}
	}
}

// WorstVsYardstick returns the scenario where policy p's mean slowdown
// is highest relative to yardstick y's (indices in r.Policies and
// r.Yardsticks; the first of equal ratios), and that ratio; -1 if no
// scenario has one.
func (r *Report) WorstVsYardstick(p, y int) (int, metrics.Ratio) {
	worst := -1
	for s, sr := range r.Scenarios {
		v := sr.Policies[p].VsYardsticks[y].Mean.Value
		if !math.IsNaN(v) && (worst < 0 || v > r.Scenarios[worst].Policies[p].VsYardsticks[y].Mean.Value) {
			worst = s
		}
	}
	if worst < 0 {
		return -1, metrics.Ratio{Value: math.NaN()}
	}
	return worst, r.Scenarios[worst].Policies[p].VsYardsticks[y].Mean
}

// AboveYardstick returns the scenarios, in order, where policy p's mean
// slowdown is above yardstick y's: its ratio to it above 1.
func (r *Report) AboveYardstick(p, y int) []int {
	var out []int
	for s, sr := range r.Scenarios {
		if sr.Policies[p].VsYardsticks[y].Mean.Value > 1 {
			out = append(out, s)
		}
	}
	return out
}
