package tune

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math"
	"slices"

	"graphcc/experiment"
	"graphcc/metrics"
	"graphcc/policy"
	"graphcc/replay"
	"graphcc/scenario"
)

// DefaultBatch is the least number of settings a round evaluates at
// once (Config.Batch).
const DefaultBatch = 32

// Search's defaults.
const (
	DefaultRefine = 2
	DefaultTop    = 3
)

// DefaultSeeds are tune's default validation seeds, 2001 to 2003, and
// DefaultConfirmSeeds its default confirmation seeds, 3001 to 3005: none
// is an evaluation seed.
func DefaultSeeds() []uint64        { return []uint64{2001, 2002, 2003} }
func DefaultConfirmSeeds() []uint64 { return []uint64{3001, 3002, 3003, 3004, 3005} }

// Config is a search for the best fixed configuration of one scenario,
// or of several at once.
type Config struct {
	// Scenarios are what the search scores on: one scenario for its own
	// best configuration, or several for one configuration for all of
	// them, scored by the geometric mean over the scenarios of each one's
	// mean slowdown.
	Scenarios []scenario.Scenario
	// Grid is the coarse grid, run first; nil means ExtendedGrid().
	Grid []Setting
	// Refine is the number of refinement rounds after the grid: each runs
	// the neighbours not yet run of the Top configurations of lowest score
	// so far, one level of kmin, kmax or pmax away (halved or doubled in
	// the first round; the step's factor is square-rooted each round
	// after; a level 0 has the neighbour 1, except pmax 0, which has
	// none).
	Refine int
	// Top is the number of leaders refined each round; 0 means
	// DefaultTop.
	Top int
	// DCQCN tunes the hosts' DCQCN reaction point jointly with the ECN
	// setting: after the refinement, a round per constant (DCQCNLadders)
	// sets it to each of its levels on each leader, and Refine more ECN
	// rounds follow with the leaders' DCQCN constants. The rounds start
	// from the hardware's constants (HardwareDCQCN of Params), which must
	// lie in the ranges a NIC accepts (control.HostParams.Validate): a
	// configuration with them is written without policy.HostsMark (its
	// hosts run them already), every other with all five of its
	// constants, which replace the hardware's wherever the spec runs.
	// Without DCQCN the hosts keep the hardware's constants throughout.
	DCQCN bool
	// Roles tunes the switch ports facing a host and those facing a switch
	// apart: last, Refine+1 rounds (from the step 2 again) run the
	// neighbours of each leader's setting of one role, the other kept.
	Roles bool
	// Seeds are the validation seeds the selection scores on; ConfirmSeeds
	// the seeds of the confirmation, apart from them. Neither may hold an
	// evaluation seed (experiment.CheckTrainingSeeds). Empty: the defaults.
	Seeds, ConfirmSeeds []uint64
	// Params, Interval and Workers are as in experiment.Config: every configuration
	// runs on that simulated hardware, so a result's specs reproduce its
	// scores on the same hardware (Result.Hardware records it).
	Params   replay.Params
	Interval int64
	Workers  int
	// Batch is the number of configurations a round evaluates at once (at
	// least twice Workers); 0 means DefaultBatch. Results do not
	// depend on it; memory grows with it.
	Batch int
	// Progress, if not nil, is called after each round (the grid, every
	// later round, the confirmation); calls never overlap.
	Progress func(Round)
	// RunProgress, if not nil, is called after each run of a round with
	// the round's runs done and its total; calls never overlap.
	RunProgress func(done, total int)
	// Prior are one-scenario tune results of some of Scenarios, made on
	// Seeds with the same hardware (LoadPrior): a configuration they ran
	// is not simulated again on their scenario, its score there taken
	// from them. The winner is run again if its interval needs seeds it
	// was not run on here, and it must score as its priors said.
	Prior []*Result
}

// Rounds returns the number of rounds Search with c makes, the confirmation
// included (c's defaults filled in).
func (c Config) Rounds() int {
	n := 1 + c.Refine + 1 // grid, refinement, confirmation
	if c.DCQCN {
		n += len(DCQCNLadders()) + c.Refine
	}
	if c.Roles {
		n += c.Refine + 1
	}
	return n
}

// Search searches fixed configurations (switch ECN settings, by port role
// if c.Roles, with the hosts' DCQCN constants if c.DCQCN) for the one of
// lowest mean FCT slowdown on c.Scenarios: the grid, then rounds around
// the leaders, scored on the validation seeds, then the winner against
// static and the paper grid's best on the confirmation seeds, with their
// intervals. Every round runs through experiment.Evaluate (in parallel,
// each trace built once per batch of configurations); the result is the
// same whatever c.Workers.
func Search(ctx context.Context, c Config) (*Result, error) {
	if err := c.setDefaults(); err != nil {
		return nil, fmt.Errorf("tune: %w", err)
	}
	prior, err := c.priorScores()
	if err != nil {
		return nil, fmt.Errorf("tune: %w", err)
	}
	t := &tuner{c: c, seen: map[string]bool{}, prior: prior}
	if err := t.round(ctx, "grid", gridConfigs(c.Grid)); err != nil {
		return nil, err
	}
	return t.afterGrid(ctx)
}

// afterGrid runs the rounds after the grid and returns the result.
func (t *tuner) afterGrid(ctx context.Context) (*Result, error) {
	c := t.c
	if err := t.refine(ctx, "refine", t.ecnNeighbours, c.Refine); err != nil {
		return nil, err
	}
	if c.DCQCN {
		for _, l := range DCQCNLadders() {
			if err := t.round(ctx, "dcqcn "+l.Name, t.dcqcnNeighbours(l)); err != nil {
				return nil, err
			}
		}
		if err := t.refine(ctx, "refine dcqcn", t.ecnNeighbours, c.Refine); err != nil {
			return nil, err
		}
	}
	if c.Roles {
		if err := t.refine(ctx, "roles", t.roleNeighbours, c.Refine+1); err != nil {
			return nil, err
		}
	}
	return t.result(ctx)
}

// refine runs n rounds named "name 1", "name 2", … of the neighbours of
// the leaders, at the step 2 and then its square root each round.
func (t *tuner) refine(ctx context.Context, name string, neighbours func(step float64) []Candidate, n int) error {
	step := 2.0
	for r := 1; r <= n; r++ {
		if err := t.round(ctx, fmt.Sprintf("%s %d", name, r), neighbours(step)); err != nil {
			return err
		}
		step = math.Sqrt(step)
	}
	return nil
}

// result is the best run with its interval, confirmed.
func (t *tuner) result(ctx context.Context) (*Result, error) {
	if err := t.rescore(ctx); err != nil {
		return nil, err
	}
	best := t.runs[t.best()]
	res := &Result{
		BestPolicy: best.Policy, Best: best.Candidate,
		Score: best.Score, Seeds: slices.Clone(t.c.Seeds), Runs: t.runs,
		Hardware: policy.Hardware(t.c.Params, t.c.Interval),
	}
	if len(t.c.Scenarios) == 1 {
		res.Scenario = t.c.Scenarios[0].Name
	} else {
		for _, sc := range t.c.Scenarios {
			res.Scenarios = append(res.Scenarios, sc.Name)
		}
	}
	if best.loo != nil {
		if r := metrics.LogInterval(best.Score, metrics.Logs(best.loo)); r.HasInterval() {
			res.ScoreLo, res.ScoreHi = &r.Lo, &r.Hi
		}
	}
	if err := t.confirm(ctx, res); err != nil {
		return nil, err
	}
	return res, nil
}

func (c *Config) setDefaults() error {
	if c.Grid == nil {
		c.Grid = ExtendedGrid()
	}
	if c.Top == 0 {
		c.Top = DefaultTop
	}
	if len(c.Seeds) == 0 {
		c.Seeds = DefaultSeeds()
	}
	if len(c.ConfirmSeeds) == 0 {
		c.ConfirmSeeds = DefaultConfirmSeeds()
	}
	switch {
	case len(c.Scenarios) == 0:
		return errors.New("no scenario")
	case len(c.Grid) == 0:
		return errors.New("empty grid")
	case c.Refine < 0:
		return fmt.Errorf("refine %d rounds: must not be negative", c.Refine)
	case c.Top < 0:
		return fmt.Errorf("top %d: must not be negative", c.Top)
	}
	for _, s := range c.Grid {
		if !s.valid() {
			return fmt.Errorf("grid setting %+v: want 0 <= kmin <= kmax and pmax in [0, 1]", s)
		}
	}
	if c.DCQCN {
		if err := HardwareDCQCN(c.Params).Params().Validate(); err != nil {
			return fmt.Errorf("the hardware's hosts' constants, where the DCQCN rounds start, are not a NIC's: %w", err)
		}
	}
	if err := experiment.CheckTrainingSeeds(c.Seeds); err != nil {
		return fmt.Errorf("validation seeds: %w", err)
	}
	if err := experiment.CheckTrainingSeeds(c.ConfirmSeeds); err != nil {
		return fmt.Errorf("confirmation seeds: %w", err)
	}
	for _, s := range c.ConfirmSeeds {
		if slices.Contains(c.Seeds, s) {
			return fmt.Errorf("seed %d is both a validation and a confirmation seed", s)
		}
	}
	return nil
}

// tuner is the state of one Search: the runs so far.
type tuner struct {
	c     Config
	runs  []Run
	seen  map[string]bool      // specs run
	prior []map[string]float64 // per scenario, the prior scores by spec (nil: none)
}

// best returns the index of the run of lowest score, the first of ties.
func (t *tuner) best() int {
	b := 0
	for i, r := range t.runs {
		if r.Score < t.runs[b].Score {
			b = i
		}
	}
	return b
}

// leaders returns the Top runs of lowest score, best first (the earlier
// of ties first).
func (t *tuner) leaders() []Run {
	order := make([]int, len(t.runs))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(t.runs[a].Score, t.runs[b].Score) })
	out := make([]Run, 0, t.c.Top)
	for _, i := range order[:min(t.c.Top, len(order))] {
		out = append(out, t.runs[i])
	}
	return out
}

// round runs the configurations not run yet on the validation seeds and
// records their scores.
func (t *tuner) round(ctx context.Context, name string, cands []Candidate) error {
	var todo []Candidate
	for _, c := range cands {
		if spec := c.Spec(); !t.seen[spec] {
			t.seen[spec] = true
			todo = append(todo, c)
		}
	}
	runs, err := t.score(ctx, todo, name)
	if err != nil {
		return fmt.Errorf("tune: %s: %w", name, err)
	}
	t.runs = append(t.runs, runs...)
	if t.c.Progress != nil && len(t.runs) > 0 {
		b := t.runs[t.best()]
		t.c.Progress(Round{Name: name, Settings: len(todo), Best: b.Policy, Score: b.Score})
	}
	return nil
}

// scenarioScore is a configuration's mean slowdown on one scenario, with
// its values leaving out each validation seed (nil when it came from a
// prior result, or with too few seeds for intervals).
type scenarioScore struct {
	mean  float64
	loo   []float64
	prior bool // from a prior result
}

// score returns the runs of cands in round name: each scenario's score
// from the prior results where they have it, the others simulated, a
// scenario at a time in batches.
func (t *tuner) score(ctx context.Context, cands []Candidate, name string) ([]Run, error) {
	per := make([][]scenarioScore, len(cands))
	for i := range per {
		per[i] = make([]scenarioScore, len(t.c.Scenarios))
	}
	var pending [][]int // per scenario, the candidates to simulate on it
	total := 0
	for j := range t.c.Scenarios {
		var idx []int
		for i, c := range cands {
			if v, ok := t.priorScore(j, c.Spec()); ok {
				per[i][j] = scenarioScore{mean: v, prior: true}
			} else {
				idx = append(idx, i)
			}
		}
		pending = append(pending, idx)
		total += len(idx) * len(t.c.Seeds)
	}
	done := 0
	for j, idx := range pending {
		if err := t.simulate(ctx, j, cands, idx, per, &done, total); err != nil {
			return nil, err
		}
	}
	runs := make([]Run, len(cands))
	for i, c := range cands {
		runs[i] = t.scoreRun(c, name, per[i])
	}
	return runs, nil
}

// priorScore returns the prior score of spec on scenario j, if any.
func (t *tuner) priorScore(j int, spec string) (float64, bool) {
	if t.prior == nil || t.prior[j] == nil {
		return 0, false
	}
	v, ok := t.prior[j][policy.Canonical(spec)]
	return v, ok
}

// simulate runs the candidates idx of cands on scenario j at the
// validation seeds, in batches (an evaluation holds every result of a
// configuration until its last seed has run, so memory grows with the
// configurations of one experiment.Evaluate, about 0.6 MB per run on
// fb60-incast; a trace is built again per batch, which takes
// milliseconds), and sets their scores in per.
func (t *tuner) simulate(ctx context.Context, j int, cands []Candidate, idx []int, per [][]scenarioScore, done *int, total int) error {
	batch := t.c.Batch
	if batch <= 0 {
		batch = DefaultBatch
	}
	batch = max(batch, 2*t.c.Workers)
	for from := 0; from < len(idx); from += batch {
		to := min(from+batch, len(idx))
		pols := make([]policy.Named, 0, to-from)
		for _, i := range idx[from:to] {
			np, err := policy.Parse(ctx, cands[i].Spec(), policy.Env{})
			if err != nil {
				return err
			}
			pols = append(pols, np)
		}
		c := t.config(pols, t.c.Seeds)
		c.Scenarios = t.c.Scenarios[j : j+1]
		if t.c.RunProgress != nil {
			base := *done
			c.Progress = func(d, _ int) { t.c.RunProgress(base+d, total) }
		}
		rep, err := experiment.Evaluate(ctx, c)
		if err != nil {
			return err
		}
		for k, i := range idx[from:to] {
			pr := rep.Scenarios[0].Policies[k]
			per[i][j] = scenarioScore{mean: pr.Summary.Slowdown.Mean, loo: pr.SlowdownLOO()}
		}
		*done += (to - from) * len(t.c.Seeds)
	}
	return nil
}

// scoreRun is the run of configuration c of round name from its score on
// each scenario: the mean slowdown, or the geometric mean over the
// scenarios of theirs, with its values leaving out each seed where every
// scenario has them.
func (t *tuner) scoreRun(c Candidate, name string, per []scenarioScore) Run {
	r := Run{Policy: policy.Canonical(c.Spec()), Candidate: c, Round: name}
	n := float64(len(per))
	logScore := 0.0
	loo := make([]float64, len(t.c.Seeds))
	for _, sc := range per {
		logScore += math.Log(sc.mean) / n
		if len(per) > 1 {
			r.PerScenario = append(r.PerScenario, sc.mean)
		}
		if sc.prior {
			r.Reused++
		}
		if len(sc.loo) != len(loo) {
			loo = nil
		}
		for k := range loo {
			loo[k] += math.Log(sc.loo[k]) / n
		}
	}
	r.per = per
	r.Score = math.Exp(logScore)
	if len(per) == 1 {
		r.Score = per[0].mean // exactly
	}
	if loo != nil {
		for k := range loo {
			loo[k] = math.Exp(loo[k])
		}
		r.loo = loo
	}
	return r
}

// rescore runs the best configuration again on every scenario whose score
// came from a prior result, for its interval, and checks that it scores as
// the prior said: a prior made by another build or on other traces would
// not.
func (t *tuner) rescore(ctx context.Context) error {
	b := t.best()
	best := t.runs[b]
	if best.Reused == 0 {
		return nil
	}
	per := [][]scenarioScore{slices.Clone(best.per)}
	var reused []int
	for j, sc := range per[0] {
		if sc.prior {
			reused = append(reused, j)
		}
	}
	var done int
	for _, j := range reused {
		if err := t.simulate(ctx, j, []Candidate{best.Candidate}, []int{0}, per, &done, len(reused)*len(t.c.Seeds)); err != nil {
			return fmt.Errorf("tune: the winner again: %w", err)
		}
		if v, _ := t.priorScore(j, best.Candidate.Spec()); v != per[0][j].mean {
			return fmt.Errorf("tune: the winner %s scores %v on %s, its prior result said %v: the prior was made by another build or on other traces",
				best.Policy, per[0][j].mean, t.c.Scenarios[j].Name, v)
		}
	}
	again := t.scoreRun(best.Candidate, best.Round, per[0])
	again.Reused = best.Reused
	t.runs[b] = again
	return nil
}

// config is the evaluation of pols on the scenarios at seeds.
func (t *tuner) config(pols []policy.Named, seeds []uint64) experiment.Config {
	return experiment.Config{
		Scenarios: t.c.Scenarios, Policies: pols, Seeds: seeds,
		Params: t.c.Params, Interval: t.c.Interval, Workers: t.c.Workers,
	}
}
