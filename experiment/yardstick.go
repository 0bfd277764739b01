package experiment

import (
	"fmt"
	"math"
	"slices"
	"strings"

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

// yardstickIndex returns the index in r.Policies of yardstick y.
func (r *Report) yardstickIndex(y int) int {
	return slices.Index(r.Policies, r.Yardsticks[y])
}

// incompleteMarkVs returns " †" if policy p or policy q left flows of
// scenario si unfinished (incompleteMark against q instead of the
// reference).
func (r *Report) incompleteMarkVs(si, p, q int) string {
	sr := &r.Scenarios[si]
	for _, i := range []int{p, q} {
		if s := sr.Policies[i].Summary; s.Completed < s.Flows {
			return " †"
		}
	}
	return ""
}

// aboveMark explains the mark of a ratio whose interval lies wholly above 1.
const aboveMark = "‡"

// writeYardsticks writes, per yardstick, every other policy's mean
// slowdown divided by the yardstick's per scenario and the geometric means
// over the scenarios (of the short-flow p99's ratios too), then per
// policy the scenarios where it is above each yardstick and its worst
// ratio to each.
func (r *Report) writeYardsticks(b *strings.Builder) {
	fmt.Fprintf(b, "\n## Yardsticks\n\n")
	fmt.Fprintf(b, "Every policy's mean slowdown divided by each yardstick's (%s) on the same traces: per scenario", strings.Join(r.Yardsticks, ", "))
	if len(r.Seeds) >= metrics.MinIntervalSeeds {
		fmt.Fprintf(b, " with its %.0f %% interval as above, and over the scenarios the geometric mean with its interval (each seed left out of every scenario at once)", 100*metrics.CILevel)
	} else {
		b.WriteString(" (no intervals: they need three seeds), and over the scenarios the geometric mean")
	}
	b.WriteString(", with the geometric mean of the ratios of the p99 slowdown of flows up to 100 KB below it.\n")
	for y, name := range r.Yardsticks {
		r.writeYardstickTable(b, y, name)
	}
	fmt.Fprintf(b, "\n### Above a yardstick\n\n")
	fmt.Fprintf(b, "Per policy, the scenarios where its mean slowdown is above each yardstick's (%s where the interval lies wholly above 1: beyond the variation between seeds), and its highest ratio to each.\n\n", aboveMark)
	for p, name := range r.Policies {
		var parts []string
		for y, yname := range r.Yardsticks {
			if yi := r.yardstickIndex(y); yi != p {
				parts = append(parts, r.aboveText(p, y, yi, yname))
			}
		}
		if len(parts) > 0 {
			fmt.Fprintf(b, "- %s: %s.\n", mdCell(name), strings.Join(parts, "; "))
		}
	}
}

// writeYardstickTable writes the table of yardstick y, named name.
func (r *Report) writeYardstickTable(b *strings.Builder, y int, name string) {
	yi := r.yardstickIndex(y)
	fmt.Fprintf(b, "\n### Mean slowdown / %s's\n\n| scenario |", mdCell(name))
	var cols []int
	for p, pn := range r.Policies {
		if p != yi {
			cols = append(cols, p)
			fmt.Fprintf(b, " %s |", mdCell(pn))
		}
	}
	b.WriteString("\n|---|" + strings.Repeat("---:|", len(cols)) + "\n")
	for si, sr := range r.Scenarios {
		fmt.Fprintf(b, "| %s |", sr.Scenario.Name)
		for _, p := range cols {
			fmt.Fprintf(b, " %s%s |", fratio(sr.Policies[p].VsYardsticks[y].Mean), r.incompleteMarkVs(si, p, yi))
		}
		b.WriteString("\n")
	}
	for _, row := range []struct {
		label string
		get   func(YardstickRatios) metrics.Ratio
	}{
		{"geometric mean", func(g YardstickRatios) metrics.Ratio { return g.Mean }},
		{"geometric mean, p99 ≤100KB", func(g YardstickRatios) metrics.Ratio { return g.SmallP99 }},
	} {
		fmt.Fprintf(b, "| %s |", row.label)
		for _, p := range cols {
			fmt.Fprintf(b, " %s |", fratio(row.get(r.GeoMeanVsYardsticks[y][p])))
		}
		b.WriteString("\n")
	}
}

// aboveText words where policy p is above yardstick y (its index yi in
// r.Policies, its name yname): "above static on 2 of 11 scenarios (fb90,
// websearch60‡), highest 1.100 (1.050–1.150) on websearch60".
func (r *Report) aboveText(p, y, yi int, yname string) string {
	above := r.AboveYardstick(p, y)
	names := make([]string, len(above))
	for i, si := range above {
		m := r.Scenarios[si].Policies[p].VsYardsticks[y].Mean
		names[i] = r.Scenarios[si].Scenario.Name
		if m.HasInterval() && m.Lo > 1 {
			names[i] += aboveMark
		}
		names[i] += r.incompleteMarkVs(si, p, yi)
	}
	s := fmt.Sprintf("above %s on %d of %d scenarios", mdCell(yname), len(above), len(r.Scenarios))
	if len(names) > 0 {
		s += " (" + strings.Join(names, ", ") + ")"
	}
	if si, worst := r.WorstVsYardstick(p, y); si >= 0 {
		s += fmt.Sprintf(", highest %s on %s", fratio(worst), r.Scenarios[si].Scenario.Name)
	}
	return s
}

// The JSON form of the yardsticks (WriteJSON).
type (
	// yardstickJSON is one yardstick's summary over the scenarios, per
	// policy in the order of the report's "policies".
	yardstickJSON struct {
		Yardstick string                `json:"yardstick"`
		Policies  []yardstickPolicyJSON `json:"policies"`
	}
	yardstickPolicyJSON struct {
		Policy     string     `json:"policy"`
		GeoMean    *float64   `json:"geomean_mean_slowdown"` // null when undefined
		GeoMeanCI  []float64  `json:"geomean_mean_slowdown_ci"`
		GeoSmall   *float64   `json:"geomean_slowdown_p99_small"`
		GeoSmallCI []float64  `json:"geomean_slowdown_p99_small_ci"`
		Worst      *yardCell  `json:"worst"` // null when no scenario has a ratio
		Above      []yardCell `json:"above"` // [] when none
	}
	// yardCell is a policy's mean slowdown ratio to a yardstick on one
	// scenario.
	yardCell struct {
		Scenario string    `json:"scenario"`
		Mean     *float64  `json:"mean_slowdown"`
		MeanCI   []float64 `json:"mean_slowdown_ci"`
	}
	// yardRatioJSON is a policy's ratios to one yardstick on one scenario.
	yardRatioJSON struct {
		Yardstick string    `json:"yardstick"`
		Mean      *float64  `json:"mean_slowdown"`
		MeanCI    []float64 `json:"mean_slowdown_ci"`
		Small     *float64  `json:"slowdown_p99_small"`
		SmallCI   []float64 `json:"slowdown_p99_small_ci"`
	}
)

// yardsticksJSON returns the summary of every yardstick: per policy its
// geometric means, worst scenario and the scenarios where it is above.
func (r *Report) yardsticksJSON() []yardstickJSON {
	var out []yardstickJSON
	for y, name := range r.Yardsticks {
		yj := yardstickJSON{Yardstick: name}
		cell := func(si, p int) yardCell {
			c := yardCell{Scenario: r.Scenarios[si].Scenario.Name}
			c.Mean, c.MeanCI = ratioJSON(r.Scenarios[si].Policies[p].VsYardsticks[y].Mean)
			return c
		}
		for p, pn := range r.Policies {
			g := r.GeoMeanVsYardsticks[y][p]
			pj := yardstickPolicyJSON{Policy: pn, Above: []yardCell{}}
			pj.GeoMean, pj.GeoMeanCI = ratioJSON(g.Mean)
			pj.GeoSmall, pj.GeoSmallCI = ratioJSON(g.SmallP99)
			if si, _ := r.WorstVsYardstick(p, y); si >= 0 {
				c := cell(si, p)
				pj.Worst = &c
			}
			for _, si := range r.AboveYardstick(p, y) {
				pj.Above = append(pj.Above, cell(si, p))
			}
			yj.Policies = append(yj.Policies, pj)
		}
		out = append(out, yj)
	}
	return out
}

// yardRatiosJSON returns pr's ratios to each yardstick of names.
func yardRatiosJSON(names []string, pr PolicyResult) []yardRatioJSON {
	var out []yardRatioJSON
	for y, yr := range pr.VsYardsticks {
		rj := yardRatioJSON{Yardstick: names[y]}
		rj.Mean, rj.MeanCI = ratioJSON(yr.Mean)
		rj.Small, rj.SmallCI = ratioJSON(yr.SmallP99)
		out = append(out, rj)
	}
	return out
}
