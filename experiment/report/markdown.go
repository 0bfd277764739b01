package report

import (
	"cmp"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"

	"graphcc/control"
	"graphcc/experiment"
	"graphcc/metrics"
)

// seedList writes the seeds as "1001, 1002".
func seedList(seeds []uint64) string {
	s := make([]string, len(seeds))
	for i, v := range seeds {
		s[i] = strconv.FormatUint(v, 10)
	}
	return strings.Join(s, ", ")
}

// incompleteNote explains incompleteMark in a report.
const incompleteNote = "† a ratio over completed flows only, where this policy or the reference left flows unfinished: " +
	"a policy that leaves its slowest flows unfinished looks faster than it is"

// incomplete reports whether a policy left flows of sr unfinished.
func incomplete(sr *experiment.ScenarioResult) bool {
	return slices.ContainsFunc(sr.Policies, func(pr experiment.PolicyResult) bool { return pr.Summary.Completed < pr.Summary.Flows })
}

// incompleteMark returns " †" if policy p or the reference policy left
// flows of scenario si unfinished, so that their ratios compare different
// sets of flows.
func (r view) incompleteMark(si, p int) string {
	sr := &r.Scenarios[si]
	for _, i := range []int{p, r.RefIndex()} {
		if s := sr.Policies[i].Summary; s.Completed < s.Flows {
			return " †"
		}
	}
	return ""
}

// fnum formats a report number with 3 significant decimals, or "–" for NaN.
func fnum(v float64, prec int) string {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return "–"
	}
	return strconv.FormatFloat(v, 'f', prec, 64)
}

// fratio formats a ratio as "0.982 (0.970–0.994)", its value and interval
// to 3 decimals, or the value alone without an interval or when the
// interval is that one value (the reference's own).
func fratio(r metrics.Ratio) string {
	v := fnum(r.Value, 3)
	if math.IsNaN(r.Value) || !r.HasInterval() || (r.Lo == r.Value && r.Hi == r.Value) {
		return v
	}
	return fmt.Sprintf("%s (%s–%s)", v, fnum(r.Lo, 3), fnum(r.Hi, 3))
}

// mdCell escapes the characters of s that would break a Markdown table.
func mdCell(s string) string {
	return strings.ReplaceAll(s, "|", `\|`)
}

// WriteMarkdown writes rep as Markdown. It leads with the reference policy
// against each other policy worded as the targets are (writeHeadline:
// "mean slowdown 21.4 % below static (95 % CI 18.6–24.2 %)") and, with
// yardsticks, against them as ratios (its mean and short-flow p99
// slowdown over each yardstick's, geometric means over the scenarios with
// their intervals), says how the figures were measured (and the
// Report.YardstickNote: which default yardstick, or why none), then per scenario a table of the policies'
// mean and p99 slowdown, p99 slowdown of flows of at most 100 KB, the
// first and last divided by the reference's (MeanVsRef, SmallP99VsRef,
// with their intervals), mean throughput, mean and p99 queue, PFC pauses,
// and for a policy that decides, the number of distinct settings it chose
// and the share of port-steps at the most used one; then every policy's
// mean slowdown per scenario divided by the reference policy's, with its
// interval, and their geometric mean over the scenarios with its interval
// (GeoMeanVsRef). With yardsticks, a table per yardstick follows of every
// other policy's mean slowdown divided by the yardstick's, per scenario
// and as geometric means, and per policy where it is above each yardstick
// and its highest ratio to each. A phased scenario's table is followed by
// one by phase: per phase its shares of the reference's flows and
// slowdown sum, and every other policy's mean slowdown of the phase's
// flows divided by the reference's, with its interval. With ShowRewards, the tables have a column per reward
// with each policy's score, and the report ends, with at least three
// policies the rewards score, with how well each reward ranks the
// policies as their mean slowdowns do per scenario.
func WriteMarkdown(w io.Writer, rep *experiment.Report) error { return view{rep}.writeMarkdown(w) }

// writeMarkdown is WriteMarkdown of r.
func (r view) writeMarkdown(w io.Writer) error {
	var b strings.Builder
	fmt.Fprintf(&b, "# Evaluation\n")
	r.writeHeadline(&b)
	r.writeIntro(&b)
	for si := range r.Scenarios {
		r.writeScenario(&b, si)
	}
	r.writeOverall(&b)
	if len(r.Yardsticks) > 0 {
		r.writeYardsticks(&b)
	}
	if len(r.shownRewards()) > 0 {
		r.writeRewardAlignment(&b)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// writeHeadline writes the reference policy against each other policy,
// per scenario and, with several, over them (GeoMeanVsRef), worded as the
// targets are: its mean slowdown and its p99 slowdown of flows of at most
// 100 KB as a percentage below (or above) the other's, with the interval
// of the ratio. Nothing with a single policy.
func (r view) writeHeadline(b *strings.Builder) {
	if len(r.Policies) < 2 {
		return
	}
	ref := r.RefIndex()
	fmt.Fprintf(b, "\n## Summary\n\n")
	fmt.Fprintf(b, "%s against each other policy: how far its mean slowdown and its p99 slowdown of short flows (at most 100 KB) are below (or above) the other's, from the ratios of the tables below", mdCell(r.Reference))
	if len(r.Seeds) >= metrics.MinIntervalSeeds {
		fmt.Fprintf(b, ", with their %.0f %% intervals", 100*metrics.CILevel)
	}
	b.WriteString(".\n\n")
	for si, sr := range r.Scenarios {
		var mean, small []string
		for pi, pr := range sr.Policies {
			if pi == ref {
				continue
			}
			mark := r.incompleteMark(si, pi)
			mean = append(mean, relativeTo(pr.MeanVsRef, pr.Policy)+mark)
			small = append(small, relativeTo(pr.SmallP99VsRef, pr.Policy)+mark)
		}
		fmt.Fprintf(b, "- %s on %s: mean slowdown %s; short-flow p99 slowdown %s.\n", mdCell(r.Reference), sr.Scenario.Name,
			strings.Join(mean, ", "), strings.Join(small, ", "))
	}
	if r.GeoMeanVsRef != nil {
		var mean []string
		for pi, g := range r.GeoMeanVsRef {
			if pi != ref {
				mean = append(mean, relativeTo(g, r.Policies[pi])+r.anyIncompleteMark(pi))
			}
		}
		fmt.Fprintf(b, "- %s over the %d scenarios (geometric mean of the ratios): mean slowdown %s.\n", mdCell(r.Reference), len(r.Scenarios),
			strings.Join(mean, ", "))
	}
	r.writeYardstickHeadline(b)
}

// relativeTo words ratio, a policy's statistic divided by the reference's,
// as the reference's against that policy's, named base: "21.4 % below
// static (95 % CI 18.6–24.2 %)" for 1.273 (1.228–1.319), "3.1 % above
// acc" for 0.970 without an interval. X % below means (1 − X/100) times
// base's, X % above (1 + X/100) times; the interval's bounds are the
// ratio's interval's, worded the same way.
func relativeTo(ratio metrics.Ratio, base string) string {
	v := ratio.Value
	if math.IsNaN(v) || math.IsInf(v, 0) || v <= 0 {
		return "undefined against " + mdCell(base)
	}
	word, x := "below", 100*(1-1/v)
	var lo, hi float64
	ci := ratio.HasInterval() && ratio.Lo > 0 && !(ratio.Lo == v && ratio.Hi == v)
	if ci {
		lo, hi = 100*(1-1/ratio.Lo), 100*(1-1/ratio.Hi)
	}
	if x < 0 {
		word, x, lo, hi = "above", -x, -hi, -lo
	}
	s := fmt.Sprintf("%s %% %s %s", fpct(x), word, mdCell(base))
	if ci {
		s += fmt.Sprintf(" (%.0f %% CI %s)", 100*metrics.CILevel, fpctRange(lo, hi))
	}
	return s
}

// fpct writes a percentage to one decimal, a negative one with a minus
// sign: "21.4", "−0.5".
func fpct(x float64) string {
	s := strconv.FormatFloat(x, 'f', 1, 64)
	if s == "-0.0" {
		s = "0.0"
	}
	return strings.Replace(s, "-", "−", 1)
}

// fpctRange writes an interval of percentages: "18.6–24.2 %", or with a
// negative bound "−0.5 to 2.4 %".
func fpctRange(lo, hi float64) string {
	if strings.HasPrefix(fpct(lo), "−") || strings.HasPrefix(fpct(hi), "−") {
		return fpct(lo) + " to " + fpct(hi) + " %"
	}
	return fpct(lo) + "–" + fpct(hi) + " %"
}

// shownRewards are the rewards WriteMarkdown writes: r.Rewards with
// ShowRewards, else none.
func (r view) shownRewards() []string {
	if !r.ShowRewards {
		return nil
	}
	return r.Rewards
}

// writeIntro writes how the report was measured.
func (r view) writeIntro(b *strings.Builder) {
	fmt.Fprintf(b, "\n## Method\n\n")
	fmt.Fprintf(b, "Policies %s on %d scenario(s), seeds %s: every policy runs on the same traces with the same simulation seeds. "+
		"Slowdown statistics are over the flows of every seed together (FCT / standalone FCT, p99 as HPCC's analysis: sorted[int(0.99·n)]); "+
		"throughput is the mean over flows of size/FCT; queues are every switch egress port sampled every control interval over the arrival window (first arrival to the end of the scenario's duration: the same span for every policy), averaged over seeds; "+
		"PFC pauses are summed over seeds. Reference policy: %s.\n",
		strings.Join(r.Policies, ", "), len(r.Scenarios), seedList(r.Seeds), r.Reference)
	if len(r.Seeds) >= metrics.MinIntervalSeeds {
		fmt.Fprintf(b, "Ratios to %s carry %.0f %% intervals from the variation between seeds (delete-one-seed jackknife of the ratio's logarithm, Student's t with %d degrees of freedom); "+
			"an interval that excludes 1 marks a difference that the traffic of other seeds would likely show too.\n", r.Reference, 100*metrics.CILevel, len(r.Seeds)-1)
	} else {
		fmt.Fprintf(b, "Ratios to %s have no intervals: those come from the variation between seeds and need at least %d.\n", r.Reference, metrics.MinIntervalSeeds)
	}
	if r.YardstickNote != "" {
		fmt.Fprintf(b, "\n%s\n", mdCell(r.YardstickNote))
	}
}

// writeScenario writes the section of scenario si: what it is, its
// table of policies and, if it is phased, its table by phase
// (writePhases).
func (r view) writeScenario(b *strings.Builder, si int) {
	sr := &r.Scenarios[si]
	flows := 0
	for _, n := range sr.Flows {
		flows += n
	}
	fmt.Fprintf(b, "\n## %s\n\n%s. %s flows over %d seed(s).", sr.Scenario.Name, sr.Scenario.Describe(),
		groupThousands(flows), len(sr.Flows))
	var failed []string
	for k, names := range sr.FailedLinks {
		if len(names) > 0 {
			failed = append(failed, fmt.Sprintf("seed %d: %s", r.Seeds[k], strings.Join(names, ", ")))
		}
	}
	if len(failed) > 0 {
		fmt.Fprintf(b, " Failed links: %s.", strings.Join(failed, "; "))
	}
	b.WriteString("\n\n")
	ci := ""
	if len(r.Seeds) >= metrics.MinIntervalSeeds {
		ci = fmt.Sprintf(" (%.0f %% CI)", 100*metrics.CILevel)
	}
	fmt.Fprintf(b, "| policy | mean slowdown | p99 slowdown | p99 slowdown ≤100KB | mean slowdown / %s%s | p99 ≤100KB / %s%s | mean throughput (Gbps) | mean queue (KB) | p99 queue (KB) | PFC pauses | settings used (top share) |",
		mdCell(r.Reference), ci, mdCell(r.Reference), ci)
	for _, rn := range r.shownRewards() {
		fmt.Fprintf(b, " reward %s |", mdCell(rn))
	}
	b.WriteString("\n|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|" + strings.Repeat("---:|", len(r.shownRewards())) + "\n")
	var notes []string
	for pi, pr := range sr.Policies {
		r.writePolicyRow(b, si, pi)
		if s := pr.Summary; s.Completed < s.Flows {
			notes = append(notes, fmt.Sprintf("%s: %d of %d flows completed (statistics are over the completed ones)", pr.Policy, s.Completed, s.Flows))
		}
	}
	if incomplete(sr) {
		notes = append(notes, incompleteNote)
	}
	for _, n := range notes {
		fmt.Fprintf(b, "\n%s.\n", mdCell(n))
	}
	r.writePhases(b, si)
}

// writePolicyRow writes the row of policy pi in the table of scenario si.
func (r view) writePolicyRow(b *strings.Builder, si, pi int) {
	pr := &r.Scenarios[si].Policies[pi]
	s := pr.Summary
	used := "—"
	if n, top := control.TopSettingShare(s.ECNSettings); n > 0 {
		used = fmt.Sprintf("%d (%.1f %%)", n, 100*top)
	}
	mark := r.incompleteMark(si, pi)
	fmt.Fprintf(b, "| %s | %s | %s | %s | %s%s | %s%s | %s | %s | %s | %d | %s |", mdCell(pr.Policy),
		fnum(s.Slowdown.Mean, 3), fnum(s.Slowdown.P99, 3), fnum(pr.SmallP99, 3),
		fratio(pr.MeanVsRef), mark, fratio(pr.SmallP99VsRef), mark, fnum(s.ThroughputGbpsMean, 3), fnum(s.QueueBytesMean/1000, 1), fnum(s.QueueBytesP99/1000, 1), s.PFCPauses, used)
	for k := range r.shownRewards() {
		fmt.Fprintf(b, " %s |", fnum(rewardOf(*pr, k), 4))
	}
	b.WriteString("\n")
}

// writeOverall writes every policy's mean slowdown per scenario divided by
// the reference's, and their geometric means over the scenarios.
func (r view) writeOverall(b *strings.Builder) {
	fmt.Fprintf(b, "\n## Overall: mean slowdown / %s's\n\n", r.Reference)
	b.WriteString("| scenario |")
	for _, p := range r.Policies {
		fmt.Fprintf(b, " %s |", mdCell(p))
	}
	b.WriteString("\n|---|" + strings.Repeat("---:|", len(r.Policies)) + "\n")
	for si, sr := range r.Scenarios {
		fmt.Fprintf(b, "| %s |", sr.Scenario.Name)
		for pi := range r.Policies {
			cell := metrics.Ratio{Value: r.NormalizedMeanSlowdown(si, pi)}
			if m := sr.Policies[pi].MeanVsRef; m.HasInterval() {
				cell.Lo, cell.Hi = m.Lo, m.Hi
			}
			fmt.Fprintf(b, " %s%s |", fratio(cell), r.incompleteMark(si, pi))
		}
		b.WriteString("\n")
	}
	if r.GeoMeanVsRef != nil {
		b.WriteString("| geometric mean |")
		for pi, g := range r.GeoMeanVsRef {
			fmt.Fprintf(b, " %s%s |", fratio(g), r.anyIncompleteMark(pi))
		}
		b.WriteString("\n")
	}
	if slices.ContainsFunc(r.Scenarios, func(sr experiment.ScenarioResult) bool { return incomplete(&sr) }) {
		fmt.Fprintf(b, "\n%s.\n", incompleteNote)
	}
}

// anyIncompleteMark is incompleteMark of policy p on the first scenario
// that has one.
func (r view) anyIncompleteMark(p int) string {
	mark := ""
	for si := range r.Scenarios {
		mark = cmp.Or(mark, r.incompleteMark(si, p))
	}
	return mark
}

// rewardOf returns policy result pr's score under reward k, NaN if it has
// none.
func rewardOf(pr experiment.PolicyResult, k int) float64 {
	if k >= len(pr.Rewards) {
		return math.NaN()
	}
	return pr.Rewards[k]
}

// writeRewardAlignment writes, per scenario and reward, how well the reward
// ranks the policies as their mean slowdown does: the policy of highest
// reward, its mean slowdown and rank by mean slowdown, the lowest mean
// slowdown and that policy's rank by reward, and Spearman's rank
// correlation between reward and the negated mean slowdown.
func (r view) writeRewardAlignment(out *strings.Builder) {
	var b strings.Builder // the rows
	for _, sr := range r.Scenarios {
		var scored []experiment.PolicyResult // those the rewards scored (not FairShare's)
		for _, pr := range sr.Policies {
			if len(pr.Rewards) > 0 {
				scored = append(scored, pr)
			}
		}
		n := len(scored)
		if n < 3 {
			continue
		}
		slow := make([]float64, n)
		for i, pr := range scored {
			slow[i] = -pr.Summary.Slowdown.Mean
		}
		for k, rn := range r.Rewards {
			rw := make([]float64, n)
			for i, pr := range scored {
				rw[i] = rewardOf(pr, k)
			}
			top, best := argmaxFirst(rw), argmaxFirst(slow)
			if top < 0 || best < 0 {
				continue
			}
			fmt.Fprintf(&b, "| %s | %s | %s | %s (%d of %d) | %s | %d of %d | %s |\n", sr.Scenario.Name, mdCell(rn),
				mdCell(scored[top].Policy), fnum(-slow[top], 3), rankOf(slow, top), n,
				mdCell(scored[best].Policy), rankOf(rw, best), n, fnum(spearman(rw, slow), 3))
		}
	}
	if b.Len() == 0 {
		return
	}
	fmt.Fprintf(out, "\n## Reward against mean slowdown\n\n")
	out.WriteString("Does the reward rank the policies as their flow completion times do? Ranks count from 1 (highest reward, lowest mean slowdown); ρ is Spearman's rank correlation of reward and −mean slowdown over the policies the rewards score (1: the same order).\n\n")
	out.WriteString("| scenario | reward | highest reward: policy | its mean slowdown (rank) | lowest mean slowdown: policy | its reward rank | ρ |\n")
	out.WriteString("|---|---|---|---:|---|---:|---:|\n")
	out.WriteString(b.String())
}

// argmaxFirst returns the index of the largest value of v, the first of
// ties, ignoring NaNs; -1 if there is none.
func argmaxFirst(v []float64) int {
	best := -1
	for i, x := range v {
		if !math.IsNaN(x) && (best < 0 || x > v[best]) {
			best = i
		}
	}
	return best
}

// rankOf returns 1 + the number of values of v greater than v[i]: v[i]'s
// rank from the top, ties sharing the best rank.
func rankOf(v []float64, i int) int {
	r := 1
	for _, x := range v {
		if x > v[i] {
			r++
		}
	}
	return r
}

// spearman returns Spearman's rank correlation of x and y: Pearson's
// correlation of their ranks, ties given their mean rank. It is NaN when
// the lengths differ, fewer than two pairs are given, a value is NaN, or
// either side is constant.
func spearman(x, y []float64) float64 {
	if len(x) != len(y) || len(x) < 2 {
		return math.NaN()
	}
	for i := range x {
		if math.IsNaN(x[i]) || math.IsNaN(y[i]) {
			return math.NaN()
		}
	}
	rx, ry := midRanks(x), midRanks(y)
	n := float64(len(x))
	var mx, my float64
	for i := range rx {
		mx += rx[i] / n
		my += ry[i] / n
	}
	var sxy, sxx, syy float64
	for i := range rx {
		dx, dy := rx[i]-mx, ry[i]-my
		sxy += dx * dy
		sxx += dx * dx
		syy += dy * dy
	}
	if sxx == 0 || syy == 0 {
		return math.NaN()
	}
	return sxy / math.Sqrt(sxx*syy)
}

// midRanks returns the rank of each value of v in ascending order, from 1,
// tied values sharing the mean of their ranks.
func midRanks(v []float64) []float64 {
	idx := make([]int, len(v))
	for i := range idx {
		idx[i] = i
	}
	slices.SortStableFunc(idx, func(a, b int) int { return cmp.Compare(v[a], v[b]) })
	ranks := make([]float64, len(v))
	for lo := 0; lo < len(idx); {
		hi := lo + 1
		for hi < len(idx) && v[idx[hi]] == v[idx[lo]] {
			hi++
		}
		mid := float64(lo+hi+1) / 2 // mean of ranks lo+1 .. hi
		for _, i := range idx[lo:hi] {
			ranks[i] = mid
		}
		lo = hi
	}
	return ranks
}

// groupThousands writes n with comma separators: 19490 -> "19,490".
func groupThousands(n int) string {
	s := strconv.Itoa(n)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	var out []byte
	for i := range len(s) {
		if i > 0 && (len(s)-i)%3 == 0 {
			out = append(out, ',')
		}
		out = append(out, s[i])
	}
	if neg {
		return "-" + string(out)
	}
	return string(out)
}
