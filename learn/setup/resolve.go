package setup

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strings"

	"graphcc/experiment"
	"graphcc/gnn"
	"graphcc/learn"
	"graphcc/policy"
	"graphcc/scenario"
	"graphcc/topo"
)

// source resolves o.Scenario in set: one scenario, the built-in
// curriculum, or a comma-separated list of scenarios on one fabric (or a
// range of a family's draws), trained on as a curriculum.
func (o Options) source(set scenario.Set, prefix string) (*Run, error) {
	r := &Run{Config: o.Config, prefix: prefix}
	name := strings.TrimSpace(o.Scenario)
	switch {
	case name == scenario.CurriculumName:
		r.cur = scenario.DefaultCurriculum()
	case strings.ContainsAny(o.Scenario, ",:"): // a list, or a range of a family's draws
		scs, err := set.Resolve(o.Scenario)
		if err != nil {
			return nil, fmt.Errorf("%sscenario %s: %w", prefix, o.Scenario, err)
		}
		if r.cur, err = scenario.NewCurriculum(scs); err != nil {
			return nil, fmt.Errorf("%sscenario %s: %w", prefix, o.Scenario, err)
		}
	default:
		sc, err := set.Pick(name, prefix)
		if err != nil {
			return nil, err
		}
		r.Scenarios = []scenario.Scenario{sc}
		r.Info = learn.RunInfo{Scenario: sc.Name, ScenarioSummary: sc.Describe()}
		return r, nil
	}
	names := r.cur.Names()
	r.Scenarios = r.cur.Scenarios
	r.Info = learn.RunInfo{Scenario: strings.Join(names, "+"), ScenarioSummary: "curriculum of " + strings.Join(names, ", "), Curriculum: names}
	if name == scenario.CurriculumName || strings.Contains(name, ":") {
		r.Info.Scenario = name // not every draw's name
	}
	return r, nil
}

// network sets c's network: its feature and action sets, which only
// GraphCC takes.
func (o Options) network(c *learn.Config, prefix string) error {
	var err error
	if c.FeatureSet, err = gnn.ParseFeatureSet(o.Features); err != nil {
		return fmt.Errorf("%sfeatures: %w", prefix, err)
	}
	if c.Kind == "acc" && c.FeatureSet != gnn.FeaturesPaper {
		return fmt.Errorf("%sfeatures %s: only %skind graphcc takes a feature set (acc has its own state)", prefix, o.Features, prefix)
	}
	if c.ActionSet, err = gnn.ParseActionSet(o.Actions); err != nil {
		return fmt.Errorf("%sactions: %w", prefix, err)
	}
	if c.Kind == "acc" && c.ActionSet != gnn.ActionsPaper {
		return fmt.Errorf("%sactions %s: only %skind graphcc takes another action set (acc's networks are the paper's)", prefix, o.Actions, prefix)
	}
	return nil
}

// reward sets c's reward and objective.
func (o Options) reward(c *learn.Config, prefix string) error {
	var err error
	if c.Shape, err = learn.ParseRewardShape(o.Reward); err != nil {
		return fmt.Errorf("%sreward: %w", prefix, err)
	}
	if c.Objective, err = learn.ParseObjective(o.Objective); err != nil {
		return fmt.Errorf("%sobjective: %w", prefix, err)
	}
	if !(o.RewardQueueKB >= 0) || math.IsInf(o.RewardQueueKB, 0) {
		return fmt.Errorf("%sreward-queue-kb %g: must be a finite number, not negative", prefix, o.RewardQueueKB)
	}
	c.Features.RewardQueue = o.RewardQueueKB * 1000
	return nil
}

// setFabric sets r's fabric and episodes: a curriculum's fabric (every
// episode's, or a variant of it without the links its scenario fails),
// or the scenario's before its random failures, if any: ACC has an agent
// per switch port of it, idle in an episode whose failures took its
// link; GraphCC's transitions are stored on its layout and learnt on
// their own episode's fabric.
func (r *Run) setFabric() error {
	c := &r.Config
	if r.cur != nil {
		c.Fabric, c.Episode, c.Events = r.cur.Fabric(), r.cur.Build, r.cur.LinkEvents
		return nil
	}
	sc := r.Scenarios[0]
	var err error
	if c.Fabric, err = sc.FixedFabric(); err != nil {
		return err
	}
	c.Episode = sc.Build
	c.Events = func(_ uint64, f *topo.Fabric) ([]topo.LinkEvent, error) { return sc.LinkEvents(f) }
	return nil
}

// hostTable checks Hosts against Kind and returns the host action table
// of o.HostActions, which needs Hosts unless it is the grid. The tuned
// tables start from the hardware's constants (Config.Params).
func (o Options) hostTable(r *Run, prefix string) (gnn.HostTable, error) {
	c := r.Config
	if c.Kind == "acc" && c.Hosts {
		return gnn.HostTable{}, fmt.Errorf("%shosts: only %skind graphcc has a host head", prefix, prefix)
	}
	var names []string
	for _, sc := range r.Scenarios {
		names = append(names, sc.Name)
	}
	t, err := policy.ParseHostActions(o.HostActions, names, c.HardwareHosts())
	if err != nil {
		return t, fmt.Errorf("%shost-actions: %w", prefix, err)
	}
	if !c.Hosts && !t.IsGrid() {
		return t, fmt.Errorf("%shost-actions %s: the host action table is the host head's: give %shosts too", prefix, o.HostActions, prefix)
	}
	if !t.IsGrid() {
		r.Info.HostActions = o.HostActions
	}
	return t, nil
}

// validation sets r's validation runs of o.ValidateSeeds, which may not be
// evaluation seeds (experiment.CheckTrainingSeeds): on the scenario, or on
// each scenario of a curriculum (a validation set each, scored by the
// geometric mean of their mean slowdowns).
func (o Options) validation(r *Run, prefix string) error {
	if o.ValidateEvery < 1 {
		return fmt.Errorf("%svalidate-every %d: must be at least 1", prefix, o.ValidateEvery)
	}
	if err := experiment.CheckTrainingSeeds(o.ValidateSeeds); err != nil {
		return fmt.Errorf("%svalidate-seeds: %w", prefix, err)
	}
	if len(o.ValidateSeeds) == 0 {
		return nil
	}
	c := &r.Config
	c.ValidateEvery = o.ValidateEvery
	if r.cur == nil {
		c.ValidateSeeds = o.ValidateSeeds
		return nil
	}
	for _, sc := range r.Scenarios {
		c.ValidateSets = append(c.ValidateSets, learn.ValidateSet{Name: sc.Name, Episode: sc.Build, Seeds: o.ValidateSeeds,
			Events: func(_ uint64, f *topo.Fabric) ([]topo.LinkEvent, error) { return sc.LinkEvents(f) }})
	}
	return nil
}

// resume records r's scenario file (file) and sets its checkpoints' meta,
// and loads o.Resume's checkpoint, refusing one of another run.
func (o Options) resume(r *Run, file, prefix string) error {
	r.Info.ScenarioFile, r.Info.ResumedFrom = file, o.Resume
	r.Config.CheckpointMeta = r.Info.CheckpointMeta()
	if o.Resume == "" {
		return nil
	}
	ck, err := learn.LoadCheckpoint(o.Resume)
	if err != nil {
		return fmt.Errorf("%sresume: %w", prefix, err)
	}
	if err := r.Info.CheckResume(ck.Meta); err != nil {
		return fmt.Errorf("%sresume %s: %w", prefix, o.Resume, err)
	}
	r.Config.Resume = ck
	return nil
}

// teacher sets r's teacher from o.Teacher, which goes with the imitate
// objective and only with it: the policy of the spec in env on each
// episode's scenario (the curriculum's pick for its seed), checked on
// every scenario first.
func (o Options) teacher(ctx context.Context, r *Run, env policy.Env, prefix string) error {
	c := &r.Config
	switch imitate := c.Objective == learn.ImitateObjective; {
	case imitate && o.Teacher == "":
		return fmt.Errorf("%sobjective imitate: needs %steacher, the policy to copy", prefix, prefix)
	case !imitate && o.Teacher != "":
		return fmt.Errorf("%steacher: only with %sobjective imitate (not %s)", prefix, prefix, c.Objective)
	case !imitate:
		return nil
	}
	var pick func(uint64) scenario.Scenario
	if r.cur != nil {
		pick = r.cur.Pick
	}
	env.Params, env.Interval = c.Params, c.Interval
	t, err := policy.NewTeacher(ctx, prefix+"teacher", o.Teacher, env, r.Scenarios, pick)
	c.TeacherName, c.Teacher = t.Name, t.New
	return err
}

// Explain words err, of learn.Train on r's Config, in the settings: a run
// without a learning update (learn.NoUpdatesError) says which to raise or
// lower, and a checkpoint that does not fit names Resume's file.
func (r *Run) Explain(err error) error {
	p := r.prefix
	if e := (*learn.NoUpdatesError)(nil); errors.As(err, &e) {
		return noUpdates(e, p)
	}
	if r.Config.Resume != nil && errors.Is(err, learn.ErrCheckpoint) {
		return fmt.Errorf("%sresume %s: %w", p, r.Info.ResumedFrom, err)
	}
	return err
}

// noUpdates words a run without a learning update (e) in the settings.
func noUpdates(e *learn.NoUpdatesError, p string) error {
	first, lower := fmt.Sprintf("%swarmup %d", p, e.Warmup), p+"warmup"
	if e.Batch > e.Warmup {
		first, lower = fmt.Sprintf("%sbatch %d", p, e.Batch), p+"batch"
	}
	switch {
	case e.Buffer < e.Need():
		return fmt.Errorf("%sbuffer %d gives 0 learning updates: the first comes after %s transitions, more than the replay buffer holds; raise %sbuffer to at least %d, or lower %s",
			p, e.Buffer, first, p, e.Need(), lower)
	case e.MinEpisodes == 0:
		return fmt.Errorf("%sepisodes %d gave 0 learning updates: the first comes after %s transitions, and the episodes gave none", p, e.Episodes, first)
	case e.Ran:
		return fmt.Errorf("%sepisodes %d gave 0 learning updates: the first comes after %s transitions, and they gave %d (the scenario's flows finished before the episodes' end); raise %sepisodes to at least %d (at that rate), or lower %s",
			p, e.Episodes, first, e.Transitions, p, e.MinEpisodes, lower)
	}
	return fmt.Errorf("%sepisodes %d gives 0 learning updates: the first comes after %s transitions, and an episode gives at most %d; raise %sepisodes to at least %d, or lower %s",
		p, e.Episodes, first, e.PerEpisode, p, e.MinEpisodes, lower)
}
