package tune

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"

	"graphcc/control"
	"graphcc/experiment"
	"graphcc/replay"
	"graphcc/scenario"
)

// A search shards its grid round, most of its work: the later
// rounds depend on the grid's scores (their leaders), so they run where
// the grid's parts are merged (Merge). A tune-grid shard's units are
// grid configurations, each run on every scenario and validation seed, so
// that the shard scores it as Search does; configurations cost about alike
// and a grid has 120 or 265 of them, so shards of experiment.Shard's round
// robin
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

// PartRun is a grid configuration a tune-grid part ran and its
// validation score, as Run has them.
type PartRun struct {
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

// PartSearch is the search a tune-grid part is of (GridPart), its
// Part.Tune: Config's fields besides the scenarios, the validation seeds and
// the simulator, which its experiment.PartConfig records.
type PartSearch struct {
	Grid         []Setting `json:"grid"`
	Refine       int       `json:"refine"`
	Top          int       `json:"top"`
	DCQCN        bool      `json:"dcqcn"`
	Roles        bool      `json:"roles"`
	ConfirmSeeds []uint64  `json:"confirm_seeds"`
}

// GridPart runs shard s of the grid round of the search c (its
// configurations whose index among the grid's distinct ones is the
// shard's, experiment.Shard) and returns its part, for Merge to continue
// the search from. Its Build is empty: the caller names its build. c's
// Progress and RunProgress report the shard's grid round.
func GridPart(ctx context.Context, c Config, s experiment.Shard) (*experiment.Part, error) {
	if err := c.setDefaults(); err != nil {
		return nil, fmt.Errorf("tune: %w", err)
	}
	if s == (experiment.Shard{}) {
		s = experiment.Shard{Index: 0, Count: 1}
	}
	if err := s.Check(); err != nil {
		return nil, fmt.Errorf("tune: %w", err)
	}
	cands := gridConfigs(c.Grid)
	p, err := newGridPart(c, s, cands)
	if err != nil {
		return nil, fmt.Errorf("tune: %w", err)
	}
	var mine []Candidate
	var index []int
	for i, cand := range cands {
		if s.Has(i) {
			mine, index = append(mine, cand), append(index, i)
		}
	}
	t := &tuner{c: c, seen: map[string]bool{}}
	if len(mine) > 0 {
		if err := t.round(ctx, "grid", mine); err != nil {
			return nil, err
		}
	}
	var runs []PartRun
	for k, r := range t.runs {
		runs = append(runs, PartRun{Config: index[k], Policy: r.Policy, Score: r.Score, PerScenario: r.PerScenario, LOO: r.loo})
	}
	if len(runs) > 0 {
		if p.Runs, err = json.Marshal(runs); err != nil {
			return nil, fmt.Errorf("tune: %w", err)
		}
	}
	return p, nil
}

// newGridPart returns the part of shard s of the grid round of c (with
// its defaults), whose distinct configurations are cands, without runs:
// its config records the grid round as an evaluation of cands, its Tune
// the rest of the search.
func newGridPart(c Config, s experiment.Shard, cands []Candidate) (*experiment.Part, error) {
	p := &experiment.Part{Kind: experiment.PartTuneGrid, Shard: s}
	pc := &p.Config
	*pc = experiment.PartConfig{Seeds: slices.Clone(c.Seeds), Params: c.Params, IntervalPs: c.Interval, Reference: cands[0].Spec()}
	if pc.Params.Payload == 0 {
		pc.Params = replay.DefaultParams() // as the simulator takes the zero Params
	}
	if pc.IntervalPs == 0 {
		pc.IntervalPs = control.DefaultInterval
	}
	for _, sc := range c.Scenarios {
		r, err := scenario.NewRecord(sc)
		if err != nil {
			return nil, err
		}
		pc.Scenarios = append(pc.Scenarios, r)
	}
	for _, cand := range cands {
		pc.Policies = append(pc.Policies, experiment.PartPolicy{Name: cand.Spec()})
	}
	var err error
	if p.Tune, err = json.Marshal(PartSearch{Grid: c.Grid, Refine: c.Refine, Top: c.Top,
		DCQCN: c.DCQCN, Roles: c.Roles, ConfirmSeeds: slices.Clone(c.ConfirmSeeds)}); err != nil {
		return nil, err
	}
	if p.Fingerprint, err = experiment.Fingerprint(pc, p.Tune); err != nil {
		return nil, err
	}
	return p, nil
}

// readGridPart returns the search and the runs of the tune-grid part p,
// checked: its config is its search's grid evaluation, and its runs are
// its shard's configurations.
func readGridPart(p *experiment.Part) (PartSearch, []PartRun, error) {
	var ps PartSearch
	var runs []PartRun
	if p.Kind != experiment.PartTuneGrid {
		return ps, nil, fmt.Errorf("a part of kind %s, not %s", p.Kind, experiment.PartTuneGrid)
	}
	if err := json.Unmarshal(p.Tune, &ps); err != nil {
		return ps, nil, fmt.Errorf("damaged part file: tune: %w", err)
	}
	if p.Runs != nil {
		if err := json.Unmarshal(p.Runs, &runs); err != nil {
			return ps, nil, fmt.Errorf("damaged part file: runs: %w", err)
		}
	}
	for _, s := range ps.Grid {
		if !s.valid() {
			return ps, nil, fmt.Errorf("tune: grid setting %+v: want 0 <= kmin <= kmax and pmax in [0, 1]", s)
		}
	}
	if len(ps.Grid) == 0 {
		return ps, nil, errors.New("tune: empty grid")
	}
	cands := gridConfigs(ps.Grid)
	pc := &p.Config
	if len(cands) != len(pc.Policies) || pc.Reference != cands[0].Spec() {
		return ps, nil, fmt.Errorf("config: %d policies for a grid of %d configurations", len(pc.Policies), len(cands))
	}
	for i, c := range cands {
		if pp := pc.Policies[i]; pp.Name != c.Spec() || pp.Inputs != nil {
			return ps, nil, fmt.Errorf("config: policy %d is %s, but the grid's configuration %d is %s", i, pp.Name, i, c.Spec())
		}
	}
	return ps, runs, checkRuns(p, cands, runs)
}

// checkRuns checks that runs are the runs of shard p.Shard of the grid
// whose distinct configurations are cands.
func checkRuns(p *experiment.Part, cands []Candidate, runs []PartRun) error {
	want := p.Shard.Units(len(cands))
	if len(runs) != len(want) {
		return fmt.Errorf("%d runs, but shard %s of its grid has %d configurations", len(runs), p.Shard, len(want))
	}
	nsc, nseed := len(p.Config.Scenarios), len(p.Config.Seeds)
	for k, r := range runs {
		switch {
		case r.Config != want[k] || r.Policy != cands[want[k]].Spec():
			return fmt.Errorf("run %d: %s, configuration %d, in the place of configuration %d (%s)", k, r.Policy, r.Config, want[k], cands[want[k]].Spec())
		case r.PerScenario != nil && (nsc < 2 || len(r.PerScenario) != nsc):
			return fmt.Errorf("run %d: %d scores per scenario of %d scenarios", k, len(r.PerScenario), nsc)
		case r.LOO != nil && len(r.LOO) != nseed:
			return fmt.Errorf("run %d: %d scores leaving out a seed, of %d seeds", k, len(r.LOO), nseed)
		}
	}
	return nil
}

// config returns the search a tune-grid part with config pc and search
// ps is of.
func (ps PartSearch) config(pc *experiment.PartConfig) (Config, error) {
	c := Config{Grid: ps.Grid, Refine: ps.Refine, Top: ps.Top, DCQCN: ps.DCQCN, Roles: ps.Roles,
		Seeds: pc.Seeds, ConfirmSeeds: ps.ConfirmSeeds, Params: pc.Params, Interval: pc.IntervalPs}
	for _, r := range pc.Scenarios {
		sc, err := r.Scenario()
		if err != nil {
			return Config{}, err
		}
		c.Scenarios = append(c.Scenarios, sc)
	}
	return c, nil
}

// MergeOptions are how Merge runs the rounds after the grid: the fields
// of Config that do not change its result.
type MergeOptions struct {
	Workers, Batch int
	Progress       func(Round)
	RunProgress    func(done, total int)
}

// Merge puts together the parts of every shard of a search's grid round
// (GridPart), run by graphcc build build, and continues the search from
// there as Search does (refinement, DCQCN and role rounds, the
// confirmation), running those rounds here: its result is the one Search
// of the whole search returns. It refuses parts as experiment.Merge does,
// and damaged searches or runs, naming the file.
func Merge(ctx context.Context, parts []*experiment.PartReader, build string, o MergeOptions) (*Result, error) {
	byShard, err := experiment.CheckParts(parts, experiment.PartTuneGrid, build)
	if err != nil {
		return nil, fmt.Errorf("merge: %w", err)
	}
	c, err := ConfigOf(byShard[0].Part)
	if err != nil {
		return nil, fmt.Errorf("merge: %s: %w", byShard[0].Name(), err)
	}
	// The parts' searches are one (CheckParts: one fingerprint), and so
	// are their grids.
	cands := gridConfigs(c.Grid)
	runs := make([]Run, len(cands))
	for _, p := range byShard {
		_, pruns, err := readGridPart(p.Part)
		if err != nil {
			return nil, fmt.Errorf("merge: %s: %w", p.Name(), err)
		}
		for _, r := range pruns {
			runs[r.Config] = Run{Policy: r.Policy, Candidate: cands[r.Config], Round: "grid", Score: r.Score,
				PerScenario: r.PerScenario, loo: r.LOO}
		}
	}
	c.Workers, c.Batch, c.Progress, c.RunProgress = o.Workers, o.Batch, o.Progress, o.RunProgress
	if err := c.setDefaults(); err != nil {
		return nil, fmt.Errorf("merge: %s: tune: %w", byShard[0].Name(), err)
	}
	t := &tuner{c: c, runs: runs, seen: map[string]bool{}}
	for _, r := range runs {
		t.seen[r.Spec()] = true
	}
	if c.Progress != nil {
		b := t.runs[t.best()]
		c.Progress(Round{Name: "grid", Settings: len(runs), Best: b.Policy, Score: b.Score})
	}
	return t.afterGrid(ctx)
}

// ConfigOf returns the search the tune-grid part p is of (without
// Workers, Batch and the progress functions, which Merge takes), its
// part and runs checked.
func ConfigOf(p *experiment.Part) (Config, error) {
	ps, _, err := readGridPart(p)
	if err != nil {
		return Config{}, err
	}
	return ps.config(&p.Config)
}
