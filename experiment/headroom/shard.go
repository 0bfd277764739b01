package headroom

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"

	"graphcc/experiment"
	"graphcc/experiment/tune"
)

// A measurement shards in two stages, each the runs fixed before it
// starts, each merged by a job that measures what depends on them:
//
//  1. the search's grid round (SearchPart: tune.GridPart of the search
//     Measure runs); merging its parts (tune.Merge) runs the search's
//     later rounds and gives the tune result that Config.Tuned takes;
//  2. with the search done, the rows that do not depend on the schedule
//     (RowsPart: the best constant, the ideal and the policies on the
//     report seeds); merging its parts (Merge) runs the descent and the
//     schedule's own rows in the merging process.
//
// The descent stays in one process: each of its steps starts from the
// schedule the step before kept, so its runs are known only one step
// (segments' candidates on the selection seeds) at a time, and sharding
// them would take an array and a merge per step. The result of the two
// stages and their merges is the one Measure returns (TestShardedEqualsMeasure).

// SearchPart runs shard s of the grid round of c's search, the search
// Measure runs when c.Tuned is nil (tune.GridPart): tune.Merge of every
// shard's part (graphcc merge) continues it to the tune result that
// c.Tuned then takes.
func SearchPart(ctx context.Context, c Config, s experiment.Shard) (*experiment.Part, error) {
	if err := c.setDefaults(); err != nil {
		return nil, fmt.Errorf("headroom: %w", err)
	}
	if c.Tuned != nil {
		return nil, errors.New("headroom: the search is done (Tuned): shard the rows (RowsPart)")
	}
	t := c.tuneConfig()
	t.RunProgress = c.RunProgress
	return tune.GridPart(ctx, t, s)
}

// SearchRuns returns the number of simulations of shard s of c's
// search's grid round (SearchPart).
func SearchRuns(c Config, s experiment.Shard) int {
	if c.setDefaults() != nil {
		return 0
	}
	return len(s.Units(tune.GridSize(c.Grid))) * len(c.SelectSeeds)
}

// partMeasurement is a headroom part's Tune: the measurement beyond the
// evaluation its units are of (the rows that do not depend on the
// schedule), whose experiment.PartConfig records the scenario, the report
// seeds, the hardware and the policies.
type partMeasurement struct {
	Tune        *tune.Result     `json:"tune"`
	SelectSeeds []uint64         `json:"select_seeds"`
	Grid        []tune.Setting   `json:"grid"`
	Refine      int              `json:"refine"`
	Top         int              `json:"top"`
	SwitchOnly  bool             `json:"switch_only"`
	SegmentPs   int64            `json:"segment_ps"`
	Candidates  int              `json:"candidates"`
	Also        []tune.Candidate `json:"also,omitempty"`
	Passes      int              `json:"passes"`
}

// rowsOf returns the measurement of c (its search done: c.Tuned) and the
// evaluation of its rows that do not depend on the schedule.
func rowsOf(ctx context.Context, c Config) (*measurement, experiment.Config, error) {
	if err := c.setDefaults(); err != nil {
		return nil, experiment.Config{}, err
	}
	if c.Tuned == nil {
		return nil, experiment.Config{}, errors.New("the search is not done (no Tuned): shard it first (SearchPart)")
	}
	m, err := newMeasurement(c)
	if err != nil {
		return nil, experiment.Config{}, err
	}
	if err := m.search(ctx); err != nil {
		return nil, experiment.Config{}, err
	}
	ec, err := m.rowsConfig(ctx)
	return m, ec, err
}

// RowsRuns returns the number of simulations of shard s of c's rows that
// do not depend on the schedule (RowsPart), 0 if c is not a measurement
// whose search is done.
func RowsRuns(ctx context.Context, c Config, s experiment.Shard) int {
	_, ec, err := rowsOf(ctx, c)
	if err != nil {
		return 0
	}
	return len(s.Units(len(ec.Policies) * len(ec.Seeds)))
}

// RowsPart runs shard s of the rows of c that do not depend on its
// schedule: the best constant of c.Tuned, the ideal and c.Policies on
// the report seeds, the units of an evaluation as experiment.EvaluatePart
// runs them. Its part, of kind experiment.PartHeadroom, records the rest
// of the measurement; Merge of every shard's part measures the rest. Its
// Build is empty: the caller names its build.
func RowsPart(ctx context.Context, c Config, s experiment.Shard) (*experiment.Part, error) {
	m, ec, err := rowsOf(ctx, c)
	if err != nil {
		return nil, fmt.Errorf("headroom: %w", err)
	}
	ec.Progress = c.RunProgress
	p, err := experiment.EvaluatePart(ctx, ec, s)
	if err != nil {
		return nil, fmt.Errorf("headroom: %w", err)
	}
	p.Kind = experiment.PartHeadroom
	c = m.c // with its defaults
	if p.Tune, err = json.Marshal(partMeasurement{Tune: c.Tuned, SelectSeeds: c.SelectSeeds, Grid: c.Grid, Refine: c.Refine,
		Top: c.Top, SwitchOnly: c.SwitchOnly, SegmentPs: c.Segment, Candidates: c.Candidates, Also: c.Also, Passes: c.Passes}); err != nil {
		return nil, fmt.Errorf("headroom: %w", err)
	}
	if p.Fingerprint, err = experiment.Fingerprint(&p.Config, p.Tune); err != nil {
		return nil, fmt.Errorf("headroom: %w", err)
	}
	return p, nil
}

// ConfigOf returns the measurement the headroom part p is of, without
// its policies (their rows are in the parts), Workers, the journal and
// Progress.
func ConfigOf(p *experiment.Part) (Config, error) {
	if p.Kind != experiment.PartHeadroom {
		return Config{}, fmt.Errorf("a part of kind %s, not %s", p.Kind, experiment.PartHeadroom)
	}
	var pm partMeasurement
	if err := json.Unmarshal(p.Tune, &pm); err != nil {
		return Config{}, fmt.Errorf("damaged part file: tune: %w", err)
	}
	if pm.Tune == nil || len(p.Config.Scenarios) != 1 {
		return Config{}, errors.New("damaged part file: a headroom part of no search or not one scenario")
	}
	sc, err := p.Config.Scenarios[0].Scenario()
	if err != nil {
		return Config{}, err
	}
	return Config{
		Scenario: sc, Grid: pm.Grid, Refine: pm.Refine, Top: pm.Top, SwitchOnly: pm.SwitchOnly, Tuned: pm.Tune,
		Segment: pm.SegmentPs, Candidates: pm.Candidates, Also: pm.Also, Passes: pm.Passes,
		SelectSeeds: pm.SelectSeeds, ReportSeeds: slices.Clone(p.Config.Seeds),
		Params: p.Config.Params, Interval: p.Config.IntervalPs,
	}, nil
}

// Merge puts together the parts of every shard of a measurement's rows
// (RowsPart), run by graphcc build build, and measures the rest here as
// Measure does (the descent and the schedule's rows): its result is the
// one Measure of the whole returns. It refuses parts as
// experiment.Merge does. prepare, if not nil, is given the measurement
// (ConfigOf) before it runs, to set its Workers, journal and Progress.
func Merge(ctx context.Context, parts []*experiment.PartReader, build string, prepare func(*Config) error) (*Result, error) {
	if len(parts) == 0 {
		return nil, errors.New("merge: no part files")
	}
	c, err := ConfigOf(parts[0].Part)
	if err != nil {
		return nil, fmt.Errorf("merge: %s: %w", parts[0].Name(), err)
	}
	if prepare != nil {
		if err := prepare(&c); err != nil {
			return nil, err
		}
	}
	rows, err := experiment.MergeKind(parts, experiment.PartHeadroom, build)
	if err != nil {
		return nil, err
	}
	return measure(ctx, c, rows)
}
