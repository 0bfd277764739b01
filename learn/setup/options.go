package setup

import (
	"context"
	"fmt"
	"strconv"

	"graphcc/gnn"
	"graphcc/learn"
	"graphcc/policy"
	"graphcc/scenario"
)

// Options are a training run as a person writes it (graphcc train's
// flags). Config holds the settings taken as they are: Kind, Seed,
// Episodes, Workers, Gamma, LR, Batch, Buffer, Updates, Warmup,
// TargetEvery, EpsStart, EpsEnd, EpsDecay, Hosts, Interval and Params;
// Resolve sets the rest of it from the fields below. Error keys are the
// flags' names: episodes, kind, features and so on.
type Options struct {
	Config learn.Config
	// Scenario names what to train on: a scenario; several
	// comma-separated on one fabric, or a range of a family's draws
	// (family:A-B), trained on as a curriculum; or
	// scenario.CurriculumName. "" is the only scenario of the Set's file.
	Scenario string
	// Features and Actions name the GraphCC network's feature and action
	// sets (gnn.ParseFeatureSet, gnn.ParseActionSet); HostActions the
	// host head's table (policy.ParseHostActions: grid, or tuned:DIR).
	Features, Actions, HostActions string
	// Reward names the reward's shape (learn.ParseRewardShape), and
	// RewardQueueKB is its queue scale, KB at 25 Gbps (0: the default).
	Reward        string
	RewardQueueKB float64
	// Objective names what the agents are rewarded for
	// (learn.ParseObjective); Teacher is the policy spec imitate copies,
	// given with that objective only.
	Objective, Teacher string
	// ValidateSeeds are the seeds of the validation runs, none of them an
	// evaluation seed (experiment.CheckTrainingSeeds), every ValidateEvery
	// episodes.
	ValidateSeeds []uint64
	ValidateEvery int
	// Resume is the checkpoint file of the run to continue, "" for none.
	Resume string
}

// DefaultOptions returns train's defaults: learn.DefaultConfig with seed
// 1, on the default scenario, GraphCC's paper features and actions, the
// host action grid, the convex per-port reward, validation every 10
// episodes.
func DefaultOptions() Options {
	c := learn.DefaultConfig()
	c.Seed = 1
	return Options{Config: c, Scenario: scenario.Default().Name, Features: gnn.FeaturesPaper.String(), Actions: gnn.ActionsPaper.String(),
		HostActions: "grid", Reward: "convex", Objective: "port", ValidateEvery: 10}
}

// Run is a resolved training run.
type Run struct {
	// Config trains the run; Info is what it records (without Command).
	Config learn.Config
	Info   learn.RunInfo
	// Scenarios are what it trains on: one, or a curriculum's.
	Scenarios []scenario.Scenario
	cur       *scenario.Curriculum
	prefix    string
}

// Resolve checks o and returns its run on the scenarios of set, its
// teacher built in env (its Params and Interval: the run's). Errors name
// the setting as prefix plus its key.
func (o Options) Resolve(ctx context.Context, set scenario.Set, env policy.Env, prefix string) (*Run, error) {
	if err := o.checkSettings(prefix); err != nil {
		return nil, err
	}
	r, err := o.source(set, prefix)
	if err != nil {
		return nil, err
	}
	for _, sc := range r.Scenarios {
		if err := sc.CheckTraining(); err != nil {
			return nil, fmt.Errorf("%sscenario %s: %w", prefix, o.Scenario, err)
		}
	}
	if err := o.network(&r.Config, prefix); err != nil {
		return nil, err
	}
	if err := r.setFabric(); err != nil {
		return nil, err
	}
	if err := o.reward(&r.Config, prefix); err != nil {
		return nil, err
	}
	if r.Config.HostTable, err = o.hostTable(r, prefix); err != nil {
		return nil, err
	}
	if err := o.validation(r, prefix); err != nil {
		return nil, err
	}
	if err := o.resume(r, set.Path, prefix); err != nil {
		return nil, err
	}
	return r, o.teacher(ctx, r, env, prefix)
}

// checkSettings refuses a zero among o.Config's settings that
// learn.Config reads as "the default", which would silently train with the
// default instead, EpsStart 0 with EpsEnd 0, which the trainer also
// replaces by its defaults, and negative Workers.
func (o Options) checkSettings(prefix string) error {
	c, d := o.Config, learn.DefaultConfig()
	for _, s := range []struct {
		key, def string
		isZero   bool
	}{
		{"episodes", strconv.Itoa(d.Episodes), c.Episodes == 0},
		{"gamma", formatFloat(d.Gamma), c.Gamma == 0},
		{"lr", formatFloat(d.LR), c.LR == 0},
		{"batch", strconv.Itoa(d.Batch), c.Batch == 0},
		{"buffer", strconv.Itoa(d.Buffer), c.Buffer == 0},
		{"updates", strconv.Itoa(d.Updates), c.Updates == 0},
		{"warmup", strconv.Itoa(d.Warmup), c.Warmup == 0},
		{"target-every", strconv.Itoa(d.TargetEvery), c.TargetEvery == 0},
		{"eps-decay", formatFloat(d.EpsDecay), c.EpsDecay == 0},
	} {
		if s.isZero {
			return fmt.Errorf("%s%s 0: must be positive (the trainer would take its default, %s, in its place)", prefix, s.key, s.def)
		}
	}
	if c.EpsStart == 0 && c.EpsEnd == 0 {
		return fmt.Errorf("%[1]seps-start 0 with %[1]seps-end 0: the trainer would take its defaults, %s and %s, in their place: give one of them a positive rate",
			prefix, formatFloat(d.EpsStart), formatFloat(d.EpsEnd))
	}
	if c.Workers < 0 {
		return fmt.Errorf("%sworkers %d: must not be negative (0 = GOMAXPROCS)", prefix, c.Workers)
	}
	return nil
}

// formatFloat writes v as a flag's default value reads.
func formatFloat(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }
