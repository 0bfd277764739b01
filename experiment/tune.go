package experiment

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"

	"graphcc/gnn"
	"graphcc/internal/fileio"
	"graphcc/metrics"
	"graphcc/policy"
	"graphcc/replay"
	"graphcc/scenario"
)

// Setting is one fixed switch ECN setting as policy.Fixed takes it: the
// thresholds in KB (1000 B) of a 25 Gbps port, scaled by each switch
// port's rate, and the marking probability at kmax.
type Setting struct {
	KMinKB float64 `json:"kmin_kb"`
	KMaxKB float64 `json:"kmax_kb"`
	PMax   float64 `json:"pmax"`
}

// Spec returns the setting's policy spec, static:KMIN_KB,KMAX_KB,PMAX in
// policy.Canonical's form.
func (s Setting) Spec() string { return policy.Canonical("static:" + s.args()) }

// valid reports whether s is a setting the simulator takes: 0 <= kmin <=
// kmax and pmax in [0, 1] (pmax 0 marks every packet above kmax and none
// below: a step at kmax).
func (s Setting) valid() bool {
	return s.KMinKB >= 0 && s.KMaxKB >= s.KMinKB && s.PMax >= 0 && s.PMax <= 1
}

// PaperGrid returns the paper's 120 fixed settings, gnn's action table in
// action order: kmin {2, 4, 8, 16, 32} KB, kmax {16, …, 256} KB with kmin
// <= kmax, pmax {0.01, 0.25, 0.5, 0.75, 1}.
func PaperGrid() []Setting { return ActionGrid(gnn.ActionsPaper) }

// ActionGrid returns the 120 settings of action set s in action order:
// the settings a model of that table plays exactly, so a search on it
// finds the best label an imitation teacher can give such a model.
func ActionGrid(s gnn.ActionSet) []Setting {
	out := make([]Setting, gnn.NumActions)
	for a := range out {
		kmin, kmax, pmax := s.Levels(a)
		out[a] = Setting{float64(kmin), float64(kmax), pmax}
	}
	return out
}

// ExtendedGrid returns the paper's grid (first, in its order) and then
// the settings of the wider levels that it lacks: kmin {0, 1, 2, 4, 8,
// 16, 32} KB, kmax {2, 4, 8, 16, …, 256, 512} KB with kmin <= kmax, and
// the paper's pmax levels (265 settings in all).
func ExtendedGrid() []Setting {
	out := PaperGrid()
	seen := map[Setting]bool{}
	for _, s := range out {
		seen[s] = true
	}
	kmins := []float64{0, 1, 2, 4, 8, 16, 32}
	kmaxs := []float64{2, 4, 8, 16, 32, 64, 128, 256, 512}
	for _, kmin := range kmins {
		for _, kmax := range kmaxs {
			if kmax < kmin {
				continue
			}
			for _, p := range gnn.ActionPMax {
				s := Setting{kmin, kmax, p}
				if !seen[s] {
					seen[s] = true
					out = append(out, s)
				}
			}
		}
	}
	return out
}

// DefaultTuneBatch is the least number of settings a round evaluates at
// once (TuneConfig.Batch).
const DefaultTuneBatch = 32

// Tune's defaults.
const (
	DefaultTuneRefine = 2
	DefaultTuneTop    = 3
)

// DefaultTuneSeeds are tune's default validation seeds, 2001 to 2003, and
// DefaultConfirmSeeds its default confirmation seeds, 3001 to 3005: none
// is an evaluation seed.
func DefaultTuneSeeds() []uint64    { return []uint64{2001, 2002, 2003} }
func DefaultConfirmSeeds() []uint64 { return []uint64{3001, 3002, 3003, 3004, 3005} }

// TuneConfig is a search for the best fixed configuration of one scenario,
// or of several at once.
type TuneConfig struct {
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
	// DefaultTuneTop.
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
	// evaluation seed (CheckTrainingSeeds). Empty: the defaults.
	Seeds, ConfirmSeeds []uint64
	// Params, Interval and Workers are as in Config: every configuration
	// runs on that simulated hardware, so a result's specs reproduce its
	// scores on the same hardware (TuneResult.Hardware records it).
	Params   replay.Params
	Interval int64
	Workers  int
	// Batch is the number of configurations a round evaluates at once (at
	// least twice Workers); 0 means DefaultTuneBatch. Results do not
	// depend on it; memory grows with it.
	Batch int
	// Progress, if not nil, is called after each round (the grid, every
	// later round, the confirmation); calls never overlap.
	Progress func(TuneRound)
	// RunProgress, if not nil, is called after each run of a round with
	// the round's runs done and its total; calls never overlap.
	RunProgress func(done, total int)
	// Prior are one-scenario tune results of some of Scenarios, made on
	// Seeds with the same hardware (LoadPrior): a configuration they ran
	// is not simulated again on their scenario, its score there taken
	// from them. The winner is run again if its interval needs seeds it
	// was not run on here, and it must score as its priors said.
	Prior []*TuneResult
}

// Rounds returns the number of rounds Tune with c makes, the confirmation
// included (c's defaults filled in).
func (c TuneConfig) Rounds() int {
	n := 1 + c.Refine + 1 // grid, refinement, confirmation
	if c.DCQCN {
		n += len(DCQCNLadders()) + c.Refine
	}
	if c.Roles {
		n += c.Refine + 1
	}
	return n
}

// TuneRound is what a round of Tune did.
type TuneRound struct {
	Name     string // "grid", "refine 1", …, "dcqcn timer", …, "roles 1", …, "confirm"
	Settings int    // configurations run (policies for the confirmation)
	Best     string // the best configuration so far
	Score    float64
}

// TuneRun is one configuration Tune ran and its validation score.
type TuneRun struct {
	Policy string `json:"policy"`
	Candidate
	Round string `json:"round"`
	// Score is the mean FCT slowdown over the flows of every validation
	// seed together (of several scenarios, the geometric mean of theirs).
	Score float64 `json:"score"`
	// PerScenario are the mean slowdowns of each scenario, with several.
	PerScenario []float64 `json:"per_scenario,omitempty"`
	// Reused counts the scenarios whose score came from a prior result
	// (TuneConfig.Prior), not from a simulation of this search.
	Reused int `json:"reused,omitempty"`
	// loo are Score's values leaving out each validation seed (nil
	// without them).
	loo []float64
	// per are its scores on each scenario, nil for runs not scored by
	// this search (a merge's grid).
	per []scenarioScore
}

// TuneRatio is a ratio of mean slowdowns on the confirmation seeds, with
// its 95 % interval (Lo and Hi absent with fewer than
// metrics.MinIntervalSeeds seeds).
type TuneRatio struct {
	Value float64  `json:"value"`
	Lo    *float64 `json:"lo,omitempty"`
	Hi    *float64 `json:"hi,omitempty"`
}

func tuneRatio(r metrics.Ratio) TuneRatio {
	t := TuneRatio{Value: r.Value}
	if r.HasInterval() {
		lo, hi := r.Lo, r.Hi
		t.Lo, t.Hi = &lo, &hi
	}
	return t
}

// TuneConfirm is the winner against static, the paper grid's best and
// the best of one ECN setting for all ports on the confirmation seeds.
type TuneConfirm struct {
	Seeds []uint64 `json:"seeds"`
	// MeanSlowdown is each policy's mean slowdown over the confirmation
	// seeds' flows (of several scenarios, the geometric mean of theirs):
	// best_policy, static, paper_grid_best and best_one_setting.
	MeanSlowdown map[string]float64 `json:"mean_slowdown"`
	// PaperGridBest is the best on the validation seeds of the paper's
	// 120 settings that were run, in the grid or a refinement ("" when
	// none was).
	PaperGridBest string `json:"paper_grid_best,omitempty"`
	// BestOneSetting is, when Tune tuned DCQCN or port roles, the best on
	// the validation seeds of the runs with one ECN setting for all ports
	// and the hardware's hosts' constants ("" otherwise).
	BestOneSetting string `json:"best_one_setting,omitempty"`
	// VsStatic is best_policy's mean slowdown divided by static's,
	// VsPaperGridBest by PaperGridBest's and VsBestOneSetting by
	// BestOneSetting's (absent without it, or when it is best_policy).
	VsStatic         TuneRatio  `json:"vs_static"`
	VsPaperGridBest  *TuneRatio `json:"vs_paper_grid_best,omitempty"`
	VsBestOneSetting *TuneRatio `json:"vs_best_one_setting,omitempty"`
}

// TuneResult is what Tune found.
type TuneResult struct {
	// Scenario is the scenario tuned, if one; Scenarios are the scenarios
	// tuned together, if several.
	Scenario  string   `json:"scenario,omitempty"`
	Scenarios []string `json:"scenarios,omitempty"`
	// BestPolicy is the spec of the configuration of lowest validation
	// score (the first run of that score), which policy.Parse takes.
	BestPolicy string    `json:"best_policy"`
	Best       Candidate `json:"best"`
	// Score is BestPolicy's mean slowdown on the validation seeds, and
	// ScoreLo and ScoreHi its 95 % interval from the spread between seeds
	// (absent with fewer than metrics.MinIntervalSeeds).
	Score   float64  `json:"score"`
	ScoreLo *float64 `json:"score_lo,omitempty"`
	ScoreHi *float64 `json:"score_hi,omitempty"`
	Seeds   []uint64 `json:"seeds"`
	// Hardware is the simulated hardware and control interval the
	// scores were made with (policy.Hardware's form); absent in
	// results written before it was recorded.
	Hardware string      `json:"hardware,omitempty"`
	Confirm  TuneConfirm `json:"confirm"`
	// Runs are every configuration run, in the order run.
	Runs []TuneRun `json:"runs"`

	source string // the file LoadPrior read it from
}

// WriteJSON writes r as indented JSON.
func (r *TuneResult) WriteJSON(w io.Writer) error { return fileio.WriteJSON(w, r) }

// Tune searches fixed configurations (switch ECN settings, by port role
// if c.Roles, with the hosts' DCQCN constants if c.DCQCN) for the one of
// lowest mean FCT slowdown on c.Scenarios: the grid, then rounds around
// the leaders, scored on the validation seeds, then the winner against
// static and the paper grid's best on the confirmation seeds, with their
// intervals. Every round runs through Evaluate (in parallel, each trace
// built once per batch of configurations); the result is the same
// whatever c.Workers.
func Tune(ctx context.Context, c TuneConfig) (*TuneResult, error) {
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
func (t *tuner) afterGrid(ctx context.Context) (*TuneResult, error) {
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
func (t *tuner) result(ctx context.Context) (*TuneResult, error) {
	if err := t.rescore(ctx); err != nil {
		return nil, err
	}
	best := t.runs[t.best()]
	res := &TuneResult{
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

func (c *TuneConfig) setDefaults() error {
	if c.Grid == nil {
		c.Grid = ExtendedGrid()
	}
	if c.Top == 0 {
		c.Top = DefaultTuneTop
	}
	if len(c.Seeds) == 0 {
		c.Seeds = DefaultTuneSeeds()
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
	if err := CheckTrainingSeeds(c.Seeds); err != nil {
		return fmt.Errorf("validation seeds: %w", err)
	}
	if err := CheckTrainingSeeds(c.ConfirmSeeds); err != nil {
		return fmt.Errorf("confirmation seeds: %w", err)
	}
	for _, s := range c.ConfirmSeeds {
		if slices.Contains(c.Seeds, s) {
			return fmt.Errorf("seed %d is both a validation and a confirmation seed", s)
		}
	}
	return nil
}

// tuner is the state of one Tune: the runs so far.
type tuner struct {
	c     TuneConfig
	runs  []TuneRun
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
func (t *tuner) leaders() []TuneRun {
	order := make([]int, len(t.runs))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(t.runs[a].Score, t.runs[b].Score) })
	out := make([]TuneRun, 0, t.c.Top)
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
		t.c.Progress(TuneRound{Name: name, Settings: len(todo), Best: b.Policy, Score: b.Score})
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
func (t *tuner) score(ctx context.Context, cands []Candidate, name string) ([]TuneRun, error) {
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
	runs := make([]TuneRun, len(cands))
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
// configurations of one Evaluate, about 0.6 MB per run on fb60-incast; a
// trace is built again per batch, which takes milliseconds), and sets
// their scores in per.
func (t *tuner) simulate(ctx context.Context, j int, cands []Candidate, idx []int, per [][]scenarioScore, done *int, total int) error {
	batch := t.c.Batch
	if batch <= 0 {
		batch = DefaultTuneBatch
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
		rep, err := Evaluate(ctx, c)
		if err != nil {
			return err
		}
		for k, i := range idx[from:to] {
			pr := rep.Scenarios[0].Policies[k]
			per[i][j] = scenarioScore{mean: pr.Summary.Slowdown.Mean, loo: pr.slowdownLOO}
		}
		*done += (to - from) * len(t.c.Seeds)
	}
	return nil
}

// scoreRun is the run of configuration c of round name from its score on
// each scenario: the mean slowdown, or the geometric mean over the
// scenarios of theirs, with its values leaving out each seed where every
// scenario has them.
func (t *tuner) scoreRun(c Candidate, name string, per []scenarioScore) TuneRun {
	r := TuneRun{Policy: policy.Canonical(c.Spec()), Candidate: c, Round: name}
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
func (t *tuner) config(pols []policy.Named, seeds []uint64) Config {
	return Config{
		Scenarios: t.c.Scenarios, Policies: pols, Seeds: seeds,
		Params: t.c.Params, Interval: t.c.Interval, Workers: t.c.Workers,
	}
}
