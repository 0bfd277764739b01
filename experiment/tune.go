package experiment

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"

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
func (s Setting) Spec() string {
	f := func(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }
	return policy.Canonical("static:" + f(s.KMinKB) + "," + f(s.KMaxKB) + "," + f(s.PMax))
}

// valid reports whether s is a setting the simulator takes: 0 <= kmin <=
// kmax and pmax in [0, 1] (pmax 0 marks every packet above kmax and none
// below: a step at kmax).
func (s Setting) valid() bool {
	return s.KMinKB >= 0 && s.KMaxKB >= s.KMinKB && s.PMax >= 0 && s.PMax <= 1
}

// PaperGrid returns the paper's 120 fixed settings, gnn's action table in
// action order: kmin {2, 4, 8, 16, 32} KB, kmax {16, …, 256} KB with kmin
// <= kmax, pmax {0.01, 0.25, 0.5, 0.75, 1}.
func PaperGrid() []Setting {
	out := make([]Setting, gnn.NumActions)
	for a := range out {
		kmin, kmax, pmax := gnn.ActionLevels(a)
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

// TuneConfig is a search for the best fixed ECN setting of one scenario.
type TuneConfig struct {
	Scenario scenario.Scenario
	// Grid is the coarse grid, run first; nil means ExtendedGrid().
	Grid []Setting
	// Refine is the number of refinement rounds after the grid: each runs
	// the neighbours not yet run of the Top settings of lowest score so
	// far, one level of kmin, kmax or pmax away (halved or doubled in the
	// first round; the step's factor is square-rooted each round after; a
	// level 0 has the neighbour 1, except pmax 0, which has none).
	Refine int
	// Top is the number of leaders refined each round; 0 means
	// DefaultTuneTop.
	Top int
	// Seeds are the validation seeds the selection scores on; ConfirmSeeds
	// the seeds of the confirmation, apart from them. Neither may hold an
	// evaluation seed (CheckTrainingSeeds). Empty: the defaults.
	Seeds, ConfirmSeeds []uint64
	// Params, Interval and Workers are as in Config.
	Params   replay.Params
	Interval int64
	Workers  int
	// Batch is the number of settings a round evaluates at once (at least
	// twice Workers); 0 means DefaultTuneBatch. Results do not depend on
	// it; memory grows with it.
	Batch int
	// Progress, if not nil, is called after each round (the grid, every
	// refinement round, the confirmation); calls never overlap.
	Progress func(TuneRound)
	// RunProgress, if not nil, is called after each run of a round with
	// the round's runs done and its total; calls never overlap.
	RunProgress func(done, total int)
}

// TuneRound is what a round of Tune did.
type TuneRound struct {
	Name     string // "grid", "refine 1", …, "confirm"
	Settings int    // settings run (policies for the confirmation)
	Best     string // the best setting so far
	Score    float64
}

// TuneRun is one setting Tune ran and its validation score.
type TuneRun struct {
	Policy string `json:"policy"`
	Setting
	Round string `json:"round"`
	// Score is the mean FCT slowdown over the flows of every validation
	// seed together.
	Score float64 `json:"score"`
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

// TuneConfirm is the winner against static and the paper grid's best on
// the confirmation seeds.
type TuneConfirm struct {
	Seeds []uint64 `json:"seeds"`
	// MeanSlowdown is each policy's mean slowdown over the confirmation
	// seeds' flows: best_policy, static and paper_grid_best.
	MeanSlowdown map[string]float64 `json:"mean_slowdown"`
	// PaperGridBest is the best on the validation seeds of the paper's
	// 120 settings that were run, in the grid or a refinement ("" when
	// none was).
	PaperGridBest string `json:"paper_grid_best,omitempty"`
	// VsStatic is best_policy's mean slowdown divided by static's,
	// VsPaperGridBest by PaperGridBest's (absent without it).
	VsStatic        TuneRatio  `json:"vs_static"`
	VsPaperGridBest *TuneRatio `json:"vs_paper_grid_best,omitempty"`
}

// TuneResult is what Tune found.
type TuneResult struct {
	Scenario string `json:"scenario"`
	// BestPolicy is the spec of the setting of lowest validation score
	// (the first run of that score), which policy.Parse takes.
	BestPolicy string  `json:"best_policy"`
	Best       Setting `json:"best"`
	// Score is BestPolicy's mean slowdown on the validation seeds.
	Score   float64     `json:"score"`
	Seeds   []uint64    `json:"seeds"`
	Confirm TuneConfirm `json:"confirm"`
	// Runs are every setting run, in the order run.
	Runs []TuneRun `json:"runs"`
}

// WriteJSON writes r as indented JSON.
func (r *TuneResult) WriteJSON(w io.Writer) error { return fileio.WriteJSON(w, r) }

// Tune searches fixed switch ECN settings for the one of lowest mean FCT
// slowdown on c.Scenario: the grid, then c.Refine rounds of refinement
// around the leaders, scored on the validation seeds, then the winner
// against static and the paper grid's best on the confirmation seeds, with
// their intervals. Every round runs through Evaluate (in parallel, each
// trace built once per batch of settings); the result is the same
// whatever c.Workers.
func Tune(ctx context.Context, c TuneConfig) (*TuneResult, error) {
	if err := c.setDefaults(); err != nil {
		return nil, fmt.Errorf("tune: %w", err)
	}
	t := &tuner{c: c, seen: map[string]bool{}}
	if err := t.round(ctx, "grid", c.Grid); err != nil {
		return nil, err
	}
	step := 2.0
	for r := 1; r <= c.Refine; r++ {
		if err := t.round(ctx, fmt.Sprintf("refine %d", r), t.neighbours(step)); err != nil {
			return nil, err
		}
		step = math.Sqrt(step)
	}
	best := t.runs[t.best()]
	res := &TuneResult{
		Scenario: c.Scenario.Name, BestPolicy: best.Policy, Best: best.Setting,
		Score: best.Score, Seeds: slices.Clone(c.Seeds), Runs: t.runs,
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
	c    TuneConfig
	runs []TuneRun
	seen map[string]bool // specs run
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

// round runs the settings not run yet on the validation seeds and records
// their scores.
func (t *tuner) round(ctx context.Context, name string, settings []Setting) error {
	var (
		todo []Setting
		pols []policy.Named
	)
	for _, s := range settings {
		spec := s.Spec()
		if t.seen[spec] {
			continue
		}
		np, err := policy.Parse(ctx, spec, policy.Env{})
		if err != nil {
			return fmt.Errorf("tune: %s: %w", name, err)
		}
		t.seen[spec] = true
		todo = append(todo, s)
		pols = append(pols, np)
	}
	// In batches: an evaluation holds every result of a setting until its
	// last seed has run, so memory grows with the settings of one
	// Evaluate (about 0.6 MB per run on fb60-incast); a trace is built
	// again per batch, which takes milliseconds.
	batch := t.c.Batch
	if batch <= 0 {
		batch = DefaultTuneBatch
	}
	batch = max(batch, 2*t.c.Workers)
	done := 0
	for from := 0; from < len(pols); from += batch {
		to := min(from+batch, len(pols))
		c := t.config(pols[from:to], t.c.Seeds)
		if t.c.RunProgress != nil {
			total := len(pols) * len(t.c.Seeds)
			c.Progress = func(d, _ int) { t.c.RunProgress(done+d, total) }
		}
		rep, err := Evaluate(ctx, c)
		if err != nil {
			return fmt.Errorf("tune: %s: %w", name, err)
		}
		for i, pr := range rep.Scenarios[0].Policies {
			t.runs = append(t.runs, TuneRun{Policy: pr.Policy, Setting: todo[from+i], Round: name, Score: pr.Summary.Slowdown.Mean})
		}
		done += (to - from) * len(t.c.Seeds)
	}
	if t.c.Progress != nil && len(t.runs) > 0 {
		b := t.runs[t.best()]
		t.c.Progress(TuneRound{Name: name, Settings: len(pols), Best: b.Policy, Score: b.Score})
	}
	return nil
}

// config is the evaluation of pols on the scenario at seeds.
func (t *tuner) config(pols []policy.Named, seeds []uint64) Config {
	return Config{
		Scenarios: []scenario.Scenario{t.c.Scenario}, Policies: pols, Seeds: seeds,
		Params: t.c.Params, Interval: t.c.Interval, Workers: t.c.Workers,
	}
}

// neighbours returns the settings one step of factor step away from each
// of the Top leaders in kmin, kmax or pmax, valid and in leader order
// (settings already run are skipped by round).
func (t *tuner) neighbours(step float64) []Setting {
	order := make([]int, len(t.runs))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int {
		switch sa, sb := t.runs[a].Score, t.runs[b].Score; {
		case sa < sb:
			return -1
		case sa > sb:
			return 1
		}
		return 0
	})
	var out []Setting
	for _, i := range order[:min(t.c.Top, len(order))] {
		s := t.runs[i].Setting
		for _, kmin := range levelsAround(s.KMinKB, step) {
			out = append(out, Setting{kmin, s.KMaxKB, s.PMax})
		}
		for _, kmax := range levelsAround(s.KMaxKB, step) {
			out = append(out, Setting{s.KMinKB, kmax, s.PMax})
		}
		if s.PMax > 0 { // a step at kmax stays one
			for _, p := range levelsAround(s.PMax, step) {
				out = append(out, Setting{s.KMinKB, s.KMaxKB, min(p, 1)})
			}
		}
	}
	return slices.DeleteFunc(out, func(s Setting) bool { return !s.valid() })
}

// levelsAround returns v divided and multiplied by step, to three
// significant digits; for 0, the level 1.
func levelsAround(v, step float64) []float64 {
	if v == 0 {
		return []float64{1}
	}
	return []float64{round3(v / step), round3(v * step)}
}

// round3 rounds v to three significant digits.
func round3(v float64) float64 {
	if v == 0 {
		return 0
	}
	p := math.Pow(10, 2-math.Floor(math.Log10(math.Abs(v))))
	return math.Round(v*p) / p
}

// confirm runs the winner, static and the paper grid's best on the
// confirmation seeds and sets res.Confirm.
func (t *tuner) confirm(ctx context.Context, res *TuneResult) error {
	paper := map[string]bool{}
	for _, s := range PaperGrid() {
		paper[s.Spec()] = true
	}
	gridBest := -1
	for i, r := range t.runs {
		if paper[r.Policy] && (gridBest < 0 || r.Score < t.runs[gridBest].Score) {
			gridBest = i
		}
	}
	specs := []string{"static", res.BestPolicy}
	if gridBest >= 0 && t.runs[gridBest].Policy != res.BestPolicy {
		specs = append(specs, t.runs[gridBest].Policy)
	}
	var pols []policy.Named
	for _, s := range specs {
		np, err := policy.Parse(ctx, s, policy.Env{})
		if err != nil {
			return fmt.Errorf("tune: confirm: %w", err)
		}
		pols = append(pols, np)
	}
	cfg := t.config(pols, t.c.ConfirmSeeds)
	cfg.Reference, cfg.Progress = "static", t.c.RunProgress
	rep, err := Evaluate(ctx, cfg)
	if err != nil {
		return fmt.Errorf("tune: confirm: %w", err)
	}
	ps := rep.Scenarios[0].Policies
	res.Confirm = TuneConfirm{
		Seeds:        slices.Clone(t.c.ConfirmSeeds),
		MeanSlowdown: map[string]float64{"best_policy": ps[1].Summary.Slowdown.Mean, "static": ps[0].Summary.Slowdown.Mean},
		VsStatic:     tuneRatio(ps[1].MeanVsRef),
	}
	if gridBest >= 0 {
		res.Confirm.PaperGridBest = t.runs[gridBest].Policy
		g := ps[1] // the winner is the grid's best
		if len(ps) == 3 {
			g = ps[2]
		}
		res.Confirm.MeanSlowdown["paper_grid_best"] = g.Summary.Slowdown.Mean
		r := metrics.Ratio{Value: metrics.Normalize(ps[1].Summary.Slowdown.Mean, g.Summary.Slowdown.Mean)}
		if ps[1].meanLOO != nil && g.meanLOO != nil {
			// Both leave-one-seed-out ratios are to static's: their
			// quotient is the winner's to the grid's best.
			r = metrics.LogInterval(r.Value, metrics.Logs(metrics.JackknifeRatios(ps[1].meanLOO, g.meanLOO)))
		}
		tr := tuneRatio(r)
		res.Confirm.VsPaperGridBest = &tr
	}
	if t.c.Progress != nil {
		t.c.Progress(TuneRound{Name: "confirm", Settings: len(pols), Best: res.BestPolicy, Score: ps[1].Summary.Slowdown.Mean})
	}
	return nil
}
