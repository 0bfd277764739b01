package headroom

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"graphcc/experiment"
	"graphcc/experiment/tune"
	"graphcc/policy"
	"graphcc/scenario"
	"graphcc/topo"
)

// The schedule is found by coordinate descent over the segments, from
// the best constant: each pass visits the segments in time order and, for
// each, tries every other candidate there with the other segments' kept,
// and keeps the best of them only if it lowers the score (the mean
// slowdown over the selection seeds). It stops after a pass that changes
// nothing, or after Config.Passes.
//
// Why this search:
//   - It starts from the best constant and keeps only strict improvements,
//     so its schedule never scores worse than the constant on the seeds it
//     was selected on: the in-sample gain is never negative.
//   - The segments are not separable. A setting acts on the flows that
//     outlive their segment (a phase's large flows run through the next)
//     and on the queues and the NICs' rates the next segment inherits, so
//     the best setting of a segment depends on the others'; this is why
//     the schedules assembled from each regime's stationary best did not
//     transfer (docs/research-log.md, 2026-12-06). The descent scores every
//     change on the whole trace, coupling included, and revisits every
//     segment once the others have moved.
//   - Its cost is bounded and known: a pass runs at most segments ×
//     (candidates - 1) schedules on each selection seed (day: 5 × 5 × 3 =
//     75 simulations), and a schedule seen before is not run again. An
//     exhaustive search would run candidates^segments.
//   - What it selects in-sample, it may owe to the selection seeds'
//     noise: the report gives the held-out gain on disjoint seeds beside
//     the in-sample one.

// measurement is the state of one Measure.
type measurement struct {
	c       Config
	journal *Journal
	tuned   *tune.Result
	cands   []tune.Candidate // the settings a segment may take, the best first
	starts  []int64          // the segments' starts, ps from the arrival window's start
	labels  []string         // the segments' names
	cur     []int            // the schedule: per segment, an index into cands
	score   float64          // the schedule's score
	steps   []Step
	passes  int
	scored  map[string]bool // the schedules the descent scored, the constants aside
	// simulate returns the scores of pols on the selection seeds
	// (m.simulateScores; a test's stand-in).
	simulate func(ctx context.Context, pols []policy.Named) ([]float64, error)
}

// newMeasurement returns the measurement of c (its defaults set), with its
// journal and segments.
func newMeasurement(c Config) (*measurement, error) {
	m := &measurement{c: c, journal: c.Journal, scored: map[string]bool{}}
	m.simulate = m.simulateScores
	key, err := c.Key()
	if err != nil {
		return nil, err
	}
	if m.journal == nil {
		m.journal = &Journal{Key: key, Scores: map[string]float64{}}
	} else if m.journal.Key != key {
		return nil, fmt.Errorf("the journal is of another measurement (key %s, this one's %s)", m.journal.Key, key)
	}
	if m.journal.Scores == nil {
		m.journal.Scores = map[string]float64{}
	}
	m.starts, m.labels, err = Segments(c.Scenario.PhaseStarts(), c.Scenario.Gen.Duration, c.Segment)
	return m, err
}

// Segments returns the starts of the segments of a trace and their names:
// its phases (phaseStarts, from scenario.Scenario.PhaseStarts) if it has
// any, else segments of length segment over its arrival window of length
// duration (one segment if duration is 0).
func Segments(phaseStarts []int64, duration, segment int64) ([]int64, []string, error) {
	if len(phaseStarts) > 0 {
		labels := make([]string, len(phaseStarts))
		for i, s := range phaseStarts {
			labels[i] = fmt.Sprintf("phase %d (from %s)", i, topo.FormatDuration(s))
		}
		return slices.Clone(phaseStarts), labels, nil
	}
	if segment <= 0 {
		return nil, nil, fmt.Errorf("segment %s: must be positive", topo.FormatDuration(segment))
	}
	starts := []int64{0}
	for at := segment; at < duration; at += segment {
		if len(starts) == policy.MaxSchedSteps {
			return nil, nil, fmt.Errorf("segment %s: more than %d segments in %s of arrivals", topo.FormatDuration(segment), policy.MaxSchedSteps, topo.FormatDuration(duration))
		}
		starts = append(starts, at)
	}
	labels := make([]string, len(starts))
	for i, s := range starts {
		labels[i] = "from " + topo.FormatDuration(s)
	}
	return starts, labels, nil
}

// candidates returns n configurations a schedule step can play (one
// setting for every switch port): the best constant of tr first, then
// also (configurations from elsewhere, for instance other traffic's
// tuned constants), then the runs of tr of lowest score (the earlier of
// ties first), each once.
//
// Why also: the search's runs are the leader and its neighbours along the
// axes the search moved (tune's rounds refine around the leaders), so a
// schedule of its runs of lowest score can only make small departures
// from the constant; the best run of each round instead, tried on day
// and fb60, found less (docs/research-log.md, 2026-12-08). The departures
// that paid by hand on day are distant constants, the regimes' own tunes,
// which no search of day runs.
func candidates(tr *tune.Result, n int, also []tune.Candidate) []tune.Candidate {
	runs := slices.Clone(tr.Runs)
	slices.SortStableFunc(runs, func(a, b tune.Run) int { return cmp.Compare(a.Score, b.Score) })
	all := append([]tune.Candidate{tr.Best}, also...)
	for _, r := range runs {
		all = append(all, r.Candidate)
	}
	out := []tune.Candidate{}
	for _, c := range all {
		if len(out) == n {
			break
		}
		if c.ToSwitch == nil && !slices.ContainsFunc(out, func(o tune.Candidate) bool { return o.Spec() == c.Spec() }) {
			out = append(out, c)
		}
	}
	return out
}

// spec returns the policy spec of schedule sched (per segment, an index
// into m.cands): the candidate's own spec if every segment plays one,
// else a sched: spec with a step where the setting changes, each with the
// hosts' constants (the hardware's for a candidate without its own) if
// any candidate played sets some.
func (m *measurement) spec(sched []int) string {
	if !slices.ContainsFunc(sched, func(k int) bool { return k != sched[0] }) {
		return m.cands[sched[0]].Spec()
	}
	hosts := slices.ContainsFunc(sched, func(k int) bool { return m.cands[k].DCQCN != nil })
	hw := tune.HardwareDCQCN(m.c.Params)
	var parts []string
	for i, k := range sched {
		if i > 0 && k == sched[i-1] {
			continue
		}
		c := m.cands[k]
		f := func(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }
		step := topo.FormatDuration(m.starts[i]) + "=" + f(c.KMinKB) + "," + f(c.KMaxKB) + "," + f(c.PMax)
		if hosts {
			d := hw
			if c.DCQCN != nil {
				d = *c.DCQCN
			}
			step += policy.SchedHostsSep + policy.FormatHostParams(d.Params())
		}
		parts = append(parts, step)
	}
	return policy.Canonical("sched:" + strings.Join(parts, ":"))
}

// Step is one change the descent kept.
type Step struct {
	Pass    int     `json:"pass"`
	Segment int     `json:"segment"`
	Setting string  `json:"setting"` // the candidate's spec
	Score   float64 `json:"score"`   // the schedule's after the change
}

// descend runs the coordinate descent from the best constant.
func (m *measurement) descend(ctx context.Context) error {
	m.cur = make([]int, len(m.starts))
	m.score = m.tuned.Score
	for pass := 1; pass <= m.c.Passes; pass++ {
		m.passes = pass
		changed := false
		for seg := range m.starts {
			var tries [][]int
			for k := range m.cands {
				if k != m.cur[seg] {
					t := slices.Clone(m.cur)
					t[seg] = k
					tries = append(tries, t)
				}
			}
			m.progress(fmt.Sprintf("schedule: pass %d, segment %d of %d, %d settings", pass, seg+1, len(m.starts), len(tries)))
			scores, err := m.scores(ctx, tries)
			if err != nil {
				return err
			}
			best := -1
			for i, s := range scores {
				if s < m.score && (best < 0 || s < scores[best]) {
					best = i
				}
			}
			if best >= 0 {
				m.cur, m.score, changed = tries[best], scores[best], true
				m.steps = append(m.steps, Step{Pass: pass, Segment: seg, Setting: m.cands[m.cur[seg]].Spec(), Score: m.score})
			}
		}
		if !changed {
			break
		}
	}
	return nil
}

// scores returns the score of each schedule of scheds: from the journal,
// or simulated on the selection seeds, all at once, and journaled.
func (m *measurement) scores(ctx context.Context, scheds [][]int) ([]float64, error) {
	out := make([]float64, len(scheds))
	var todo []policy.Named
	var at []int
	for i, s := range scheds {
		spec := m.spec(s)
		if !slices.ContainsFunc(m.cands, func(c tune.Candidate) bool { return c.Spec() == spec }) {
			m.scored[spec] = true
		}
		if v, ok := m.journal.Scores[spec]; ok {
			out[i] = v
			continue
		}
		np, err := policy.Parse(ctx, spec, policy.Env{})
		if err != nil {
			return nil, fmt.Errorf("%s: %w", spec, err)
		}
		todo, at = append(todo, np), append(at, i)
	}
	if len(todo) == 0 {
		return out, nil
	}
	scores, err := m.simulate(ctx, todo)
	if err != nil {
		return nil, err
	}
	for k, i := range at {
		out[i] = scores[k]
		m.journal.Scores[todo[k].Name] = scores[k]
	}
	return out, m.checkpoint()
}

// simulateScores returns the mean slowdown of each of pols over the
// flows of every selection seed, all run in one evaluation, and journals
// their values leaving out each seed (Journal.LOO).
func (m *measurement) simulateScores(ctx context.Context, pols []policy.Named) ([]float64, error) {
	rep, err := experiment.Evaluate(ctx, m.evalConfig(pols, m.c.SelectSeeds))
	if err != nil {
		return nil, err
	}
	out := make([]float64, len(pols))
	for k := range pols {
		pr := &rep.Scenarios[0].Policies[k]
		out[k] = pr.Summary.Slowdown.Mean
		m.journal.keepLOO(pols[k].Name, pr.SlowdownLOO())
	}
	return out, nil
}

// evalConfig is the evaluation of pols on m's scenario at seeds.
func (m *measurement) evalConfig(pols []policy.Named, seeds []uint64) experiment.Config {
	return experiment.Config{
		Scenarios: []scenario.Scenario{m.c.Scenario}, Policies: pols, Seeds: seeds,
		Params: m.c.Params, Interval: m.c.Interval, Workers: m.c.Workers,
	}
}

// checkpoint saves the journal through Config.Checkpoint.
func (m *measurement) checkpoint() error {
	if m.c.Checkpoint == nil {
		return nil
	}
	if err := m.c.Checkpoint(m.journal); err != nil {
		return fmt.Errorf("checkpoint: %w", err)
	}
	return nil
}

// progress reports msg through Config.Progress.
func (m *measurement) progress(msg string) {
	if m.c.Progress != nil {
		m.c.Progress(msg)
	}
}
