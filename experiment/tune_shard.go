package experiment

import (
	"context"
	"fmt"
	"slices"

	"graphcc/control"
	"graphcc/replay"
	"graphcc/scenario"
)

// A search (Tune) shards its grid round, most of its work: the later
// rounds depend on the grid's scores (their leaders), so they run where
// the grid's parts are merged (MergeTune). A tune-grid shard's units are
// grid configurations, each run on every scenario and validation seed, so
// that the shard scores it as Tune does; configurations cost about alike
// and a grid has 120 or 265 of them, so shards of Shard's round robin
// balance.

// gridConfigs returns the distinct configurations of grid, in its order:
// the grid round's configurations, a tune-grid shard's units.
func gridConfigs(grid []Setting) []Candidate {
	var out []Candidate
	seen := map[string]bool{}
	for _, s := range grid {
		c := Candidate{Setting: s}
		if spec := c.Spec(); !seen[spec] {
			seen[spec] = true
			out = append(out, c)
		}
	}
	return out
}

// GridSize returns the number of distinct configurations of grid: the
// units a search's grid round shards.
func GridSize(grid []Setting) int { return len(gridConfigs(grid)) }

// TunePartRun is a grid configuration a tune-grid part ran and its
// validation score, as TuneRun has them.
type TunePartRun struct {
	// Config is the configuration's index among the grid's distinct ones,
	// Policy its spec.
	Config      int       `json:"config"`
	Policy      string    `json:"policy"`
	Score       float64   `json:"score"`
	PerScenario []float64 `json:"per_scenario,omitempty"`
	// LOO are Score's values leaving out each validation seed (absent
	// with fewer than metrics.MinIntervalSeeds).
	LOO []float64 `json:"loo,omitempty"`
}

// TuneGridPart runs shard s of the grid round of the search c (its
// configurations whose index among the grid's distinct ones is the
// shard's, Shard) and returns its part, for MergeTune to continue the
// search from. Its Build is empty: the caller names its build. c's
// Progress and RunProgress report the shard's grid round.
func TuneGridPart(ctx context.Context, c TuneConfig, s Shard) (*Part, error) {
	if err := c.setDefaults(); err != nil {
		return nil, fmt.Errorf("tune: %w", err)
	}
	if s == (Shard{}) {
		s = Shard{Index: 0, Count: 1}
	}
	if err := s.check(); err != nil {
		return nil, fmt.Errorf("tune: %w", err)
	}
	cands := gridConfigs(c.Grid)
	p := &Part{Kind: PartTuneGrid, Shard: s, Tune: &TunePartConfig{Grid: c.Grid, Refine: c.Refine, Top: c.Top,
		DCQCN: c.DCQCN, Roles: c.Roles, ConfirmSeeds: slices.Clone(c.ConfirmSeeds)}}
	p.Config = PartConfig{Seeds: slices.Clone(c.Seeds), Params: c.Params, IntervalPs: c.Interval, Reference: cands[0].Spec()}
	if p.Config.Params.Payload == 0 {
		p.Config.Params = replay.DefaultParams()
	}
	if p.Config.IntervalPs == 0 {
		p.Config.IntervalPs = control.DefaultInterval
	}
	for _, sc := range c.Scenarios {
		r, err := scenario.NewRecord(sc)
		if err != nil {
			return nil, fmt.Errorf("tune: %w", err)
		}
		p.Config.Scenarios = append(p.Config.Scenarios, r)
	}
	var mine []Candidate
	var index []int
	for i, cand := range cands {
		p.Config.Policies = append(p.Config.Policies, PartPolicy{Name: cand.Spec()})
		if s.Has(i) {
			mine, index = append(mine, cand), append(index, i)
		}
	}
	var err error
	if p.Fingerprint, err = fingerprint(&p.Config, p.Tune); err != nil {
		return nil, fmt.Errorf("tune: %w", err)
	}
	t := &tuner{c: c, seen: map[string]bool{}}
	if len(mine) > 0 {
		if err := t.round(ctx, "grid", mine); err != nil {
			return nil, err
		}
	}
	for k, r := range t.runs {
		p.Runs = append(p.Runs, TunePartRun{Config: index[k], Policy: r.Policy, Score: r.Score, PerScenario: r.PerScenario, LOO: r.loo})
	}
	return p, nil
}

// checkRuns checks a tune-grid part: its config is its search's grid
// evaluation, and its runs are its shard's configurations.
func (p *Part) checkRuns() error {
	for _, s := range p.Tune.Grid {
		if !s.valid() {
			return fmt.Errorf("tune: grid setting %+v: want 0 <= kmin <= kmax and pmax in [0, 1]", s)
		}
	}
	cands := gridConfigs(p.Tune.Grid)
	if len(cands) != len(p.Config.Policies) || p.Config.Reference != cands[0].Spec() {
		return fmt.Errorf("config: %d policies for a grid of %d configurations", len(p.Config.Policies), len(cands))
	}
	for i, c := range cands {
		if pp := p.Config.Policies[i]; pp.Name != c.Spec() || pp.Inputs != nil {
			return fmt.Errorf("config: policy %d is %s, but the grid's configuration %d is %s", i, pp.Name, i, c.Spec())
		}
	}
	want := p.Shard.Units(len(cands))
	if len(p.Runs) != len(want) {
		return fmt.Errorf("%d runs, but shard %s of its grid has %d configurations", len(p.Runs), p.Shard, len(want))
	}
	for k, r := range p.Runs {
		switch {
		case r.Config != want[k] || r.Policy != cands[want[k]].Spec():
			return fmt.Errorf("run %d: %s, configuration %d, in the place of configuration %d (%s)", k, r.Policy, r.Config, want[k], cands[want[k]].Spec())
		case r.PerScenario != nil && (len(p.Config.Scenarios) < 2 || len(r.PerScenario) != len(p.Config.Scenarios)):
			return fmt.Errorf("run %d: %d scores per scenario of %d scenarios", k, len(r.PerScenario), len(p.Config.Scenarios))
		case r.LOO != nil && len(r.LOO) != len(p.Config.Seeds):
			return fmt.Errorf("run %d: %d scores leaving out a seed, of %d seeds", k, len(r.LOO), len(p.Config.Seeds))
		}
	}
	return nil
}

// TuneConfig returns the search a tune-grid part is of.
func (p *Part) TuneConfig() (TuneConfig, error) {
	if p.Tune == nil {
		return TuneConfig{}, fmt.Errorf("a %s part, not a %s part", p.Kind, PartTuneGrid)
	}
	c := TuneConfig{Grid: p.Tune.Grid, Refine: p.Tune.Refine, Top: p.Tune.Top, DCQCN: p.Tune.DCQCN, Roles: p.Tune.Roles,
		Seeds: p.Config.Seeds, ConfirmSeeds: p.Tune.ConfirmSeeds, Params: p.Config.Params, Interval: p.Config.IntervalPs}
	for _, r := range p.Config.Scenarios {
		sc, err := r.Scenario()
		if err != nil {
			return TuneConfig{}, err
		}
		c.Scenarios = append(c.Scenarios, sc)
	}
	return c, nil
}

// TuneRunOptions are how MergeTune runs the rounds after the grid: the
// fields of TuneConfig that do not change its result.
type TuneRunOptions struct {
	Workers, Batch int
	Progress       func(TuneRound)
	RunProgress    func(done, total int)
}

// MergeTune puts together the parts of every shard of a search's grid
// round (TuneGridPart), run by graphcc build build, and continues the
// search from there as Tune does (refinement, DCQCN and role rounds, the
// confirmation), running those rounds here: its result is the one Tune of
// the whole search returns. It refuses parts as Merge does, naming the
// file.
func MergeTune(ctx context.Context, parts []*PartReader, build string, o TuneRunOptions) (*TuneResult, error) {
	byShard, err := checkParts(parts, PartTuneGrid, build)
	if err != nil {
		return nil, fmt.Errorf("merge: %w", err)
	}
	c, err := byShard[0].TuneConfig()
	if err != nil {
		return nil, fmt.Errorf("merge: %s: %w", byShard[0].name, err)
	}
	c.Workers, c.Batch, c.Progress, c.RunProgress = o.Workers, o.Batch, o.Progress, o.RunProgress
	if err := c.setDefaults(); err != nil {
		return nil, fmt.Errorf("merge: %s: tune: %w", byShard[0].name, err)
	}
	cands := gridConfigs(c.Grid)
	runs := make([]TuneRun, len(cands))
	for _, p := range byShard {
		for _, r := range p.Runs {
			runs[r.Config] = TuneRun{Policy: r.Policy, Candidate: cands[r.Config], Round: "grid", Score: r.Score,
				PerScenario: r.PerScenario, loo: r.LOO}
		}
	}
	t := &tuner{c: c, runs: runs, seen: map[string]bool{}}
	for _, cand := range cands {
		t.seen[cand.Spec()] = true
	}
	if c.Progress != nil {
		b := t.runs[t.best()]
		c.Progress(TuneRound{Name: "grid", Settings: len(cands), Best: b.Policy, Score: b.Score})
	}
	return t.afterGrid(ctx)
}
