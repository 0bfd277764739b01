package headroom

import (
	"context"
	"fmt"
	"io"
	"math"
	"path/filepath"
	"strings"

	"graphcc/experiment"
	"graphcc/experiment/tune"
	"graphcc/internal/fileio"
	"graphcc/metrics"
	"graphcc/policy"
)

// ratioOf returns r as a result writes it (tune's Ratio: Lo and Hi
// absent without an interval).
func ratioOf(r metrics.Ratio) tune.Ratio {
	out := tune.Ratio{Value: r.Value}
	if r.HasInterval() {
		lo, hi := r.Lo, r.Hi
		out.Lo, out.Hi = &lo, &hi
	}
	return out
}

// formatRatio writes r as 0.978 (0.961–0.995), or the value alone.
func formatRatio(r tune.Ratio) string {
	if math.IsNaN(r.Value) {
		return "–"
	}
	if r.Lo == nil || r.Hi == nil {
		return fmt.Sprintf("%.3f", r.Value)
	}
	return fmt.Sprintf("%.3f (%.3f–%.3f)", r.Value, *r.Lo, *r.Hi)
}

// Row is one yardstick or policy on the report seeds.
type Row struct {
	// Name is the row's role: "ideal", "best constant", "schedule" or
	// "policy".
	Name   string `json:"name"`
	Policy string `json:"policy"`
	// MeanSlowdown is the mean FCT slowdown over the flows of every
	// report seed; VsBest its ratio to the best constant's.
	MeanSlowdown float64    `json:"mean_slowdown"`
	VsBest       tune.Ratio `json:"vs_best_constant"`
	// SmallP99 is the p99 slowdown of the flows of at most 100 KB,
	// SmallP99VsBest its ratio to the best constant's.
	SmallP99       float64    `json:"small_p99"`
	SmallP99VsBest tune.Ratio `json:"small_p99_vs_best_constant"`
}

// Result is a headroom measurement.
type Result struct {
	Scenario    string   `json:"scenario"`
	Description string   `json:"description"`
	Hardware    string   `json:"hardware"`
	SelectSeeds []uint64 `json:"select_seeds"`
	ReportSeeds []uint64 `json:"report_seeds"`
	// Joint is whether the search tuned the hosts' DCQCN constants.
	Joint bool `json:"joint"`
	// BestConstant is the search's best fixed configuration, and
	// BestScore its mean slowdown on the selection seeds.
	BestConstant string  `json:"best_constant"`
	BestScore    float64 `json:"best_score"`
	// Segments are the schedule's segments' starts (ps from the arrival
	// window's start) and names; Candidates the settings each may take.
	SegmentStarts []int64  `json:"segment_starts_ps"`
	Segments      []string `json:"segments"`
	Candidates    []string `json:"candidates"`
	// Schedule is the best schedule's spec (BestConstant if the descent
	// kept no change), which graphcc eval --policies runs; ScheduleScore
	// its mean slowdown on the selection seeds; Steps the changes kept;
	// Passes the passes made; ScheduleRuns the simulations of the
	// schedules the descent scored (each on every selection seed; a
	// constant's score is the search's), run now or before a resume.
	Schedule      string  `json:"schedule"`
	ScheduleScore float64 `json:"schedule_score"`
	Steps         []Step  `json:"steps"`
	Passes        int     `json:"passes"`
	ScheduleRuns  int     `json:"schedule_runs"`
	// InSample is the schedule's mean slowdown over the best constant's on
	// the selection seeds, with its interval (the in-sample gain), and
	// HeldOut the same on the report seeds (the held-out gain); 1 when
	// the schedule is the constant.
	InSample tune.Ratio `json:"in_sample"`
	HeldOut  tune.Ratio `json:"held_out"`
	// Rows are the ideal, the best constant, the schedule and the
	// policies, on the report seeds.
	Rows []Row `json:"rows"`
}

// report runs the yardsticks and policies on the report seeds, and
// compares the schedule with the best constant on the selection seeds.
// rows, if not nil, is the evaluation of rowsConfig already run (Merge's,
// of every shard's part).
func (m *measurement) report(ctx context.Context, rows *experiment.Report) (*Result, error) {
	res := &Result{
		Scenario: m.c.Scenario.Name, Description: m.c.Scenario.Describe(),
		Hardware:    policy.Hardware(m.c.Params, m.c.Interval),
		SelectSeeds: m.c.SelectSeeds, ReportSeeds: m.c.ReportSeeds, Joint: m.c.Joint(),
		BestConstant: m.cands[0].Spec(), BestScore: m.tuned.Score,
		SegmentStarts: m.starts, Segments: m.labels,
		Schedule: m.spec(m.cur), ScheduleScore: m.score, Steps: m.steps, Passes: m.passes, ScheduleRuns: len(m.scored) * len(m.c.SelectSeeds),
	}
	for _, c := range m.cands {
		res.Candidates = append(res.Candidates, c.Spec())
	}
	m.progress("every row on the report seeds")
	if rows == nil {
		ec, err := m.rowsConfig(ctx)
		if err != nil {
			return nil, err
		}
		if rows, err = experiment.Evaluate(ctx, ec); err != nil {
			return nil, err
		}
	} else if rows.Reference != res.BestConstant {
		return nil, fmt.Errorf("the rows were run against %s, not the best constant %s", rows.Reference, res.BestConstant)
	}
	res.InSample, res.HeldOut = tune.Ratio{Value: 1}, tune.Ratio{Value: 1}
	prs := rows.Scenarios[0].Policies
	res.Rows = append(res.Rows, rowOf("best constant", prs[0]))
	if res.Schedule == res.BestConstant {
		res.Rows[0].Name = "best constant = schedule"
	} else {
		in, err := m.inSample(ctx, res.BestConstant, res.Schedule)
		if err != nil {
			return nil, err
		}
		res.InSample = ratioOf(in)
		// the best constant ran on the report seeds among the rows
		out, err := m.evaluate(ctx, []string{res.Schedule}, m.c.ReportSeeds)
		if err != nil {
			return nil, err
		}
		pr := out.Scenarios[0].Policies[0]
		pr.MeanVsRef, pr.SmallP99VsRef = pr.VsOther(&prs[0])
		res.Rows = append(res.Rows, rowOf("schedule", pr))
		res.HeldOut = res.Rows[1].VsBest
	}
	for _, pr := range prs[1:] {
		switch pr.Policy {
		case res.Schedule: // its row is the schedule's
		case "ideal":
			if len(m.c.Scenario.Events) == 0 {
				res.Rows = append(res.Rows, rowOf("ideal", pr))
				break
			}
			fallthrough
		default:
			res.Rows = append(res.Rows, rowOf("policy", pr))
		}
	}
	return res, nil
}

// inSample returns the mean slowdown of the schedule sched over the best
// constant's (best) on the selection seeds, with the interval that an
// evaluation of both there gives it: from the scores and the values
// leaving out each seed that the search and the descent journaled, running
// again only those missing (a search read from a file, a journal of a run
// interrupted before they were recorded).
func (m *measurement) inSample(ctx context.Context, best, sched string) (metrics.Ratio, error) {
	v := metrics.Normalize(m.score, m.tuned.Score)
	if len(m.c.SelectSeeds) < metrics.MinIntervalSeeds {
		return metrics.Ratio{Value: v}, nil
	}
	loo := map[string][]float64{best: m.journal.LOO[best], sched: m.journal.LOO[sched]}
	var todo []string
	for _, s := range []string{best, sched} {
		if loo[s] == nil {
			todo = append(todo, s)
		}
	}
	if len(todo) > 0 {
		rep, err := m.evaluate(ctx, todo, m.c.SelectSeeds)
		if err != nil {
			return metrics.Ratio{}, err
		}
		for k, s := range todo {
			loo[s] = rep.Scenarios[0].Policies[k].SlowdownLOO()
		}
	}
	return metrics.LogInterval(v, metrics.Logs(metrics.JackknifeRatios(loo[sched], loo[best]))), nil
}

// rowOf is the row of pr, named name.
func rowOf(name string, pr experiment.PolicyResult) Row {
	return Row{Name: name, Policy: pr.Policy, MeanSlowdown: pr.Summary.Slowdown.Mean,
		VsBest: ratioOf(pr.MeanVsRef), SmallP99: pr.SmallP99, SmallP99VsBest: ratioOf(pr.SmallP99VsRef)}
}

// rowsConfig is the evaluation of the rows that do not depend on the
// schedule, on the report seeds: the best constant (the reference), the
// ideal (unless the scenario has link events, which it does not model)
// and c.Policies, each once.
func (m *measurement) rowsConfig(ctx context.Context) (experiment.Config, error) {
	specs := []string{m.cands[0].Spec()}
	if len(m.c.Scenario.Events) == 0 {
		specs = append(specs, "ideal")
	}
	return m.evalOf(ctx, specs, m.c.Policies, m.c.ReportSeeds)
}

// evaluate runs the policies of specs at seeds, against the first.
func (m *measurement) evaluate(ctx context.Context, specs []string, seeds []uint64) (*experiment.Report, error) {
	c, err := m.evalOf(ctx, specs, nil, seeds)
	if err != nil {
		return nil, err
	}
	return experiment.Evaluate(ctx, c)
}

// evalOf is the evaluation of the policies of specs and then pols (those
// not among them already) at seeds, against the first of specs.
func (m *measurement) evalOf(ctx context.Context, specs []string, pols []policy.Named, seeds []uint64) (experiment.Config, error) {
	var all []policy.Named
	seen := map[string]bool{}
	for _, s := range specs {
		np, err := policy.Parse(ctx, s, policy.Env{})
		if err != nil {
			return experiment.Config{}, fmt.Errorf("%s: %w", s, err)
		}
		seen[np.Name] = true
		all = append(all, np)
	}
	for _, p := range pols {
		if !seen[p.Name] {
			seen[p.Name] = true
			all = append(all, p)
		}
	}
	c := m.evalConfig(all, seeds)
	c.Reference = all[0].Name
	return c, nil
}

// WriteDir writes r into directory dir as headroom.json (WriteJSON) and
// headroom.md (WriteMarkdown), each atomically, and returns their paths.
func (r *Result) WriteDir(dir string) ([]string, error) {
	paths := []string{filepath.Join(dir, "headroom.json"), filepath.Join(dir, "headroom.md")}
	for i, write := range []func(io.Writer) error{r.WriteJSON, r.WriteMarkdown} {
		if err := fileio.WriteAtomic(paths[i], write); err != nil {
			return nil, err
		}
	}
	return paths, nil
}

// WriteJSON writes r as indented JSON.
func (r *Result) WriteJSON(w io.Writer) error { return fileio.WriteJSON(w, r) }

// WriteMarkdown writes r as a Markdown report: what was measured, the
// table of rows and the schedule.
func (r *Result) WriteMarkdown(w io.Writer) error {
	var b strings.Builder
	fmt.Fprintf(&b, "# Headroom of %s\n\n%s\n\n", r.Scenario, r.Description)
	what := "switch ECN only"
	if r.Joint {
		what = "switch ECN and the hosts' DCQCN jointly"
	}
	fmt.Fprintf(&b, "Selected on seeds %s (%s), reported on seeds %s.\n\n",
		experiment.FormatSeeds(r.SelectSeeds), what, experiment.FormatSeeds(r.ReportSeeds))
	b.WriteString("| row | policy | mean slowdown | / best constant (95 % CI) | p99 ≤ 100 KB | p99 ≤ 100 KB / best constant |\n")
	b.WriteString("|---|---|---:|---:|---:|---:|\n")
	for _, row := range r.Rows {
		fmt.Fprintf(&b, "| %s | `%s` | %.3f | %s | %.3f | %s |\n", row.Name, row.Policy, row.MeanSlowdown, formatRatio(row.VsBest), row.SmallP99, formatRatio(row.SmallP99VsBest))
	}
	fmt.Fprintf(&b, "\nThe schedule over %d segments (%s), from %d candidates (passes: %d; simulations: %d):\n\n    %s\n\n",
		len(r.Segments), strings.Join(r.Segments, ", "), len(r.Candidates), r.Passes, r.ScheduleRuns, r.Schedule)
	fmt.Fprintf(&b, "Its mean slowdown over the best constant's: in-sample (selection seeds) %s, held out (report seeds) %s.\n", formatRatio(r.InSample), formatRatio(r.HeldOut))
	_, err := io.WriteString(w, b.String())
	return err
}
