package report

import (
	"fmt"
	"slices"
	"strings"

	"graphcc/experiment"
	"graphcc/metrics"
)

// incompleteMarkVs returns " †" if policy p or policy q left flows of
// scenario si unfinished (incompleteMark against q instead of the
// reference).
func (r view) incompleteMarkVs(si, p, q int) string {
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

// writeYardstickHeadline writes, for the Summary, the reference policy
// against each yardstick that is not itself, as the issues' targets are
// stated: its mean slowdown and its short-flow p99 slowdown as ratios to
// the yardstick's, on the one scenario or as geometric means over the
// scenarios, with their intervals, and on how many scenarios it is above
// each. Nothing without yardsticks.
func (r view) writeYardstickHeadline(b *strings.Builder) {
	ref := r.RefIndex()
	var mean, small, above []string
	for y, name := range r.Yardsticks {
		if r.yardstickIndex(y) == ref {
			continue
		}
		g := r.GeoMeanVsYardsticks[y][ref]
		mean = append(mean, fmt.Sprintf("%s of %s's", fratio(g.Mean), mdCell(name)))
		small = append(small, fmt.Sprintf("%s of %s's", fratio(g.SmallP99), mdCell(name)))
		above = append(above, fmt.Sprintf("%d of %s", len(r.AboveYardstick(ref, y)), mdCell(name)))
	}
	if len(mean) == 0 {
		return
	}
	where := "on " + r.Scenarios[0].Scenario.Name
	if len(r.Scenarios) > 1 {
		where = fmt.Sprintf("over the %d scenarios (geometric means; above on %s)", len(r.Scenarios), strings.Join(above, ", "))
	}
	fmt.Fprintf(b, "- %s against the yardsticks %s: mean slowdown %s; short-flow p99 slowdown %s.\n", mdCell(r.Reference), where,
		strings.Join(mean, ", "), strings.Join(small, ", "))
}

// writeYardsticks writes, per yardstick, every other policy's mean
// slowdown divided by the yardstick's per scenario and the geometric means
// over the scenarios (of the short-flow p99's ratios too), then per
// policy the scenarios where it is above each yardstick and its worst
// ratio to each.
func (r view) writeYardsticks(b *strings.Builder) {
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
func (r view) writeYardstickTable(b *strings.Builder, y int, name string) {
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
		get   func(experiment.YardstickRatios) metrics.Ratio
	}{
		{"geometric mean", func(g experiment.YardstickRatios) metrics.Ratio { return g.Mean }},
		{"geometric mean, p99 ≤100KB", func(g experiment.YardstickRatios) metrics.Ratio { return g.SmallP99 }},
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
func (r view) aboveText(p, y, yi int, yname string) string {
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
func (r view) yardsticksJSON() []yardstickJSON {
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
func yardRatiosJSON(names []string, pr experiment.PolicyResult) []yardRatioJSON {
	var out []yardRatioJSON
	for y, yr := range pr.VsYardsticks {
		rj := yardRatioJSON{Yardstick: names[y]}
		rj.Mean, rj.MeanCI = ratioJSON(yr.Mean)
		rj.Small, rj.SmallCI = ratioJSON(yr.SmallP99)
		out = append(out, rj)
	}
	return out
}

// yardstickIndex returns the index in r.Policies of yardstick y.
func (r view) yardstickIndex(y int) int {
	return slices.Index(r.Policies, r.Yardsticks[y])
}
