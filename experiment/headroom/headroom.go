package headroom

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"graphcc/experiment"
	"graphcc/experiment/tune"
	"graphcc/policy"
	"graphcc/replay"
	"graphcc/scenario"
	"graphcc/topo"
)

// Headroom's defaults.
const (
	// DefaultSegment is the length of a segment of traffic without
	// phases.
	DefaultSegment = 5 * topo.Millisecond
	// DefaultCandidates is the number of settings a segment may take.
	DefaultCandidates = 6
	// DefaultPasses bounds the passes of the coordinate descent.
	DefaultPasses = 3
	// DefaultRefine and DefaultTop are the search's refinement rounds and
	// leaders (tune.Config's), fewer than tune's so that a headroom of a
	// suite scenario stays within minutes on two cores.
	DefaultRefine = 1
	DefaultTop    = 2
)

// DefaultSelectSeeds are the seeds headroom selects on, tune's validation
// seeds 2001 to 2003; DefaultReportSeeds the seeds it reports on, 3001 to
// 3005, apart from them.
func DefaultSelectSeeds() []uint64 { return tune.DefaultSeeds() }
func DefaultReportSeeds() []uint64 { return tune.DefaultConfirmSeeds() }

// CoarseGrid returns headroom's default coarse grid: kmin {0, 2, 8, 32}
// KB, kmax {4, 16, 64, 256} KB with kmin <= kmax, pmax {0.01, 0.25, 1}
// (39 settings), from which the search's refinement and DCQCN rounds go on.
func CoarseGrid() []tune.Setting {
	var out []tune.Setting
	for _, kmin := range []float64{0, 2, 8, 32} {
		for _, kmax := range []float64{4, 16, 64, 256} {
			if kmax < kmin {
				continue
			}
			for _, p := range []float64{0.01, 0.25, 1} {
				out = append(out, tune.Setting{KMinKB: kmin, KMaxKB: kmax, PMax: p})
			}
		}
	}
	return out
}

// DefaultConfig returns a Config with every default but its scenario's and
// grid's filled in: what a command shows as its flags' defaults.
func DefaultConfig() Config {
	return Config{Refine: DefaultRefine, Top: DefaultTop, Segment: DefaultSegment, Candidates: DefaultCandidates,
		Passes: DefaultPasses, SelectSeeds: DefaultSelectSeeds(), ReportSeeds: DefaultReportSeeds()}
}

// Config is a headroom measurement of one scenario.
type Config struct {
	Scenario scenario.Scenario
	// Policies are the policies measured beside the yardsticks, on the
	// report seeds.
	Policies []policy.Named
	// Grid, Refine and Top are the search's (tune.Config); nil Grid means
	// CoarseGrid, Refine and Top 0 their defaults (a negative Refine: no
	// refinement).
	Grid        []tune.Setting
	Refine, Top int
	// SwitchOnly searches the switches' ECN setting alone; otherwise the
	// hosts' DCQCN constants are searched jointly (tune.Config.DCQCN)
	// whenever the hardware's are a NIC's.
	SwitchOnly bool
	// Tuned, if not nil, is a finished search of Scenario on SelectSeeds
	// and the same hardware (a tune result, as graphcc tune or graphcc
	// merge of its shards wrote it): used instead of searching.
	Tuned *tune.Result
	// Segment is the length of a segment of a scenario without phases;
	// 0 means DefaultSegment. A phased scenario's segments are its phases.
	Segment int64
	// Candidates is the number of settings each segment may take: the
	// best constant, Also, then the search's runs of lowest score
	// (candidates, schedule.go); 0 means DefaultCandidates.
	Candidates int
	// Also are configurations a segment may take besides the search's
	// runs (for instance the tuned constants of other traffic), each one
	// setting for every switch port, and without the hosts' constants
	// unless the search is joint.
	Also []tune.Candidate
	// Passes bounds the passes of the coordinate descent; 0 means
	// DefaultPasses.
	Passes int
	// SelectSeeds are the seeds the search and the schedule are selected
	// on (none an evaluation seed), ReportSeeds the disjoint seeds every
	// row is reported on. Empty: the defaults.
	SelectSeeds, ReportSeeds []uint64
	// Params, Interval and Workers are as in experiment.Config.
	Params   replay.Params
	Interval int64
	Workers  int
	// Journal, if not nil, holds the scores of an interrupted run of the
	// same measurement (its Key must be this one's): they are not
	// simulated again. Checkpoint, if not nil, is called with the journal
	// after the search and after each step of the descent, to save it.
	Journal    *Journal
	Checkpoint func(*Journal) error
	// Progress, if not nil, is told what the measurement is doing.
	Progress func(msg string)
	// RunProgress, if not nil, is called after each simulation of a
	// shard (SearchPart, RowsPart) with the shard's simulations finished
	// and their total (SearchRuns, RowsRuns).
	RunProgress func(done, total int)
}

// setDefaults fills c's defaults and checks it.
func (c *Config) setDefaults() error {
	if c.Grid == nil {
		c.Grid = CoarseGrid()
	}
	if c.Refine == 0 {
		c.Refine = DefaultRefine
	}
	if c.Top == 0 {
		c.Top = DefaultTop
	}
	if c.Segment == 0 {
		c.Segment = DefaultSegment
	}
	if c.Candidates == 0 {
		c.Candidates = DefaultCandidates
	}
	if c.Passes == 0 {
		c.Passes = DefaultPasses
	}
	if len(c.SelectSeeds) == 0 {
		c.SelectSeeds = DefaultSelectSeeds()
	}
	if len(c.ReportSeeds) == 0 {
		c.ReportSeeds = DefaultReportSeeds()
	}
	switch {
	case c.Segment < 0:
		return fmt.Errorf("segment %s: must be positive", topo.FormatDuration(c.Segment))
	case c.Candidates < 1, c.Passes < 1, c.Top < 1:
		return fmt.Errorf("candidates %d, passes %d, top %d: each must be at least 1", c.Candidates, c.Passes, c.Top)
	}
	for _, a := range c.Also {
		switch {
		case a.ToSwitch != nil:
			return fmt.Errorf("%s: a setting per port role, which a schedule cannot play", a.Spec())
		case a.DCQCN != nil && !c.Joint():
			return fmt.Errorf("%s sets the hosts' DCQCN constants, but the search is switch-only", a.Spec())
		}
	}
	if err := experiment.CheckTrainingSeeds(c.SelectSeeds); err != nil {
		return fmt.Errorf("selection seeds: %w", err)
	}
	for _, s := range c.ReportSeeds {
		if slices.Contains(c.SelectSeeds, s) {
			return fmt.Errorf("seed %d is both a selection and a report seed: the schedule must be reported on seeds it was not selected on", s)
		}
	}
	return nil
}

// Joint reports whether the search of c tunes the hosts' DCQCN constants:
// unless SwitchOnly, when the hardware's constants are a NIC's (the
// search starts from them).
func (c *Config) Joint() bool {
	return !c.SwitchOnly && tune.HardwareDCQCN(c.Params).Params().Validate() == nil
}

// tuneConfig is the search of c: its scenario on the selection seeds,
// confirmed on the report seeds when no evaluation seed is among them
// (else on tune's own confirmation seeds).
func (c *Config) tuneConfig() tune.Config {
	confirm := c.ReportSeeds
	if experiment.CheckTrainingSeeds(confirm) != nil {
		confirm = slices.DeleteFunc(tune.DefaultConfirmSeeds(), func(s uint64) bool { return slices.Contains(c.SelectSeeds, s) })
	}
	t := tune.Config{
		Scenarios: []scenario.Scenario{c.Scenario}, Grid: c.Grid, Refine: max(c.Refine, 0), Top: c.Top,
		DCQCN: c.Joint(), Seeds: c.SelectSeeds, ConfirmSeeds: confirm,
		Params: c.Params, Interval: c.Interval, Workers: c.Workers,
	}
	if c.Progress != nil {
		t.Progress = func(r tune.Round) {
			c.Progress(fmt.Sprintf("search: %s, %d run; best %s, %.4f", r.Name, r.Settings, r.Best, r.Score))
		}
	}
	return t
}

// Measure measures the headroom of c.Scenario: the fair-share ideal, the
// best fixed configuration (tune.Search on the selection seeds, or
// c.Tuned), the best schedule of the search's best runs and c.Also over
// the scenario's segments (coordinate descent on the selection seeds) and
// c.Policies, every one reported on the report seeds, the schedule also
// on the selection seeds. Simulations run through experiment.Evaluate,
// c.Workers at a time; the result is the same whatever c.Workers and
// whether or not the run resumed from a journal.
func Measure(ctx context.Context, c Config) (*Result, error) {
	return measure(ctx, c, nil)
}

// measure is Measure, with the rows that do not depend on the schedule
// already run if rows is not nil (the evaluation of
// measurement.rowsConfig).
func measure(ctx context.Context, c Config, rows *experiment.Report) (*Result, error) {
	if err := c.setDefaults(); err != nil {
		return nil, fmt.Errorf("headroom: %w", err)
	}
	m, err := newMeasurement(c)
	if err != nil {
		return nil, fmt.Errorf("headroom: %w", err)
	}
	if err := m.search(ctx); err != nil {
		return nil, fmt.Errorf("headroom: %w", err)
	}
	if err := m.descend(ctx); err != nil {
		return nil, fmt.Errorf("headroom: schedule: %w", err)
	}
	res, err := m.report(ctx, rows)
	if err != nil {
		return nil, fmt.Errorf("headroom: report: %w", err)
	}
	return res, nil
}

// search sets m's best constant and candidates: from c.Tuned, the
// journal, or a search.
func (m *measurement) search(ctx context.Context) error {
	tr := m.c.Tuned
	if tr == nil {
		tr = m.journal.Tune
	}
	if tr == nil {
		m.progress("searching the best fixed configuration (tune)")
		var err error
		if tr, err = tune.Search(ctx, m.c.tuneConfig()); err != nil {
			return err
		}
		m.journal.Tune = tr
		if err := m.checkpoint(); err != nil {
			return err
		}
	}
	if err := m.checkTuned(tr); err != nil {
		return err
	}
	m.tuned = tr
	m.cands = candidates(tr, m.c.Candidates, m.c.Also)
	if len(m.cands) == 0 || m.cands[0].Spec() != tr.Best.Spec() {
		return errors.New("the search's best is no configuration a schedule can take (one setting for every switch port)")
	}
	// a constant's score is the search's (the same mean over the same runs)
	for _, r := range tr.Runs {
		if slices.ContainsFunc(m.cands, func(c tune.Candidate) bool { return c.Spec() == r.Spec() }) {
			m.journal.Scores[r.Spec()] = r.Score
		}
	}
	m.journal.Scores[tr.Best.Spec()] = tr.Score
	if i := slices.IndexFunc(tr.Runs, func(r tune.Run) bool { return r.Policy == tr.BestPolicy }); i >= 0 {
		m.journal.keepLOO(tr.Best.Spec(), tr.Runs[i].ScenarioLOO(0))
	}
	return nil
}

// checkTuned refuses a search result of another scenario, other seeds or
// other hardware than m's.
func (m *measurement) checkTuned(tr *tune.Result) error {
	hw := policy.Hardware(m.c.Params, m.c.Interval)
	switch {
	case tr.Scenario != m.c.Scenario.Name:
		return fmt.Errorf("the tune result is of scenario %q, not %s", tr.Scenario, m.c.Scenario.Name)
	case !slices.Equal(tr.Seeds, m.c.SelectSeeds):
		return fmt.Errorf("the tune result was selected on seeds %s, not the selection seeds %s",
			experiment.FormatSeeds(tr.Seeds), experiment.FormatSeeds(m.c.SelectSeeds))
	case tr.Hardware != "" && tr.Hardware != hw:
		return errors.New("the tune result was made on other simulated hardware or another control interval")
	}
	return nil
}
