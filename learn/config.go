package learn

import (
	"errors"
	"fmt"
	"math"
	"runtime"
	"slices"

	"graphcc/control"
	"graphcc/gnn"
	"graphcc/replay"
	"graphcc/topo"
	"graphcc/trace"
)

// Config is one training run of multi-agent deep Q-learning on the
// simulator's control hook, or of imitation (ImitateObjective).
// DefaultConfig gives the paper's settings (the issue-3 model's); the
// zero value of a field means its default.
type Config struct {
	// Kind is "graphcc" (the shared message-passing network) or "acc" (one
	// independent network per port).
	Kind string
	// Episode returns the fabric and flows of episode seed: Fabric (the
	// first episode's when Fabric is nil), or Fabric without some of its
	// links, failed as topo.Fabric.FailLinks fails them (a scenario's
	// failures drawn per seed). The replay buffer holds transitions on
	// Fabric's ports and agents, an absent port's agent idle (NoAction),
	// and tagged with their fabric: GraphCC's updates pass messages over
	// each transition's own fabric. ACC's agents are Fabric's switch ports,
	// bound by name (topo.Fabric.PortName).
	Episode func(seed uint64) (*topo.Fabric, []trace.Flow, error)
	// Events, if not nil, returns the links that fail and come back
	// during episode seed, on f, Episode's fabric of that seed
	// (replay.Config.LinkEvents; scenario.Scenario.LinkEvents).
	Events func(seed uint64, f *topo.Fabric) ([]topo.LinkEvent, error)
	// Fabric is the fabric the agents are of (see Episode); nil means the
	// first episode's.
	Fabric *topo.Fabric
	// Episodes is the number of simulated episodes.
	Episodes int
	// Workers is the number of episodes simulated in parallel (and of
	// goroutines sharing a minibatch's gradient); 0 means GOMAXPROCS.
	// Results do not depend on it... except through floating-point
	// summation order, which is fixed for a given Workers.
	Workers int
	// Seed drives everything: initial weights, episode traces, exploration,
	// minibatch sampling.
	Seed uint64
	// EpisodeTime is the simulated time of an episode after its first
	// arrival, ps (25 ms: the GraphCC setup's episode).
	EpisodeTime int64
	// Interval is the control interval Δt, ps (100 µs).
	Interval int64

	Gamma       float64 // discount per control interval (0.9)
	LR          float64 // Adam's learning rate (1e-3)
	Batch       int     // transitions per minibatch (32)
	Buffer      int     // replay buffer capacity in transitions (20000)
	Updates     int     // minibatch updates per episode (25)
	Warmup      int     // transitions in the buffer before learning starts (1000)
	TargetEvery int     // updates between target network refreshes (200)
	EpsStart    float64 // initial exploration rate (1.0)
	EpsEnd      float64 // final exploration rate (0.02)
	EpsDecay    float64 // fraction of the episodes over which epsilon decays linearly (0.6)
	MaxGradNorm float64 // global gradient norm clip (10)

	Objective Objective         // what the agents are rewarded for; the zero value is the per-port reward of docs/learning.md
	Shape     RewardShape       // reward's queue term; the zero value is Linear, DefaultConfig sets Convex (it trained the better policy; docs/learning.md, "Reward")
	WeightQ   float64           // weight of the queue term (0.7)
	Features  gnn.FeatureConfig // feature and reward scales
	// FeatureSet is the GraphCC network's inputs (the zero value is the
	// paper's); the model file records it. Kind "acc" takes only the zero
	// value: ACC's state is its own.
	FeatureSet gnn.FeatureSet
	// ActionSet is the table of settings the GraphCC agents choose among
	// (the zero value is the paper's); the model file records it. Kind
	// "acc" takes only the zero value.
	ActionSet gnn.ActionSet
	// Hosts trains a GraphCC model with a host head: every host NIC port
	// is an agent too, choosing its DCQCN constants from the host action
	// table (gnn.HostAction) every interval, epsilon-greedy like the switch
	// agents, its transitions stored beside theirs. A host agent's reward
	// is minus the excess slowdown of the flows it sent that finished in
	// the interval, divided by PathRewardScale (PathObjective restricted
	// to the flows whose path starts at its NIC port), whatever Objective
	// rewards the switches (with ImitateObjective no reward is used: a
	// host agent learns the host action nearest to the teacher's constants
	// for its NIC, Explorer.SetTeacher). Kind "acc" and fabrics with failed
	// links (Episode) are refused.
	Hosts bool
	// HostTable is the host action table of the host head with Hosts (the
	// zero value is the grid, gnn.HostAction); the model file records it.
	// Without Hosts it must be the grid.
	HostTable gnn.HostTable
	Params    replay.Params // simulated hardware (zero: replay.DefaultParams)

	// Teacher is the policy that ImitateObjective's agents learn to copy,
	// set with that objective and only with it: for the episode of seed on
	// fabric f, a fresh policy and the initial setting of every port
	// (indexed by topo.PortID; nil means control.StaticSettings), as
	// policy.Factory builds them. It decides every interval on the
	// telemetry of the run, beside the agents, and its settings are the
	// labels (ImitateObjective), not applied; with Hosts, so are its
	// hosts' constants (control.HostDecider, control.HostTuner; else HPCC's
	// preset). Validation runs the learned policy alone.
	Teacher func(f *topo.Fabric, seed uint64) (control.Policy, []control.ECN, error)
	// TeacherName names the teacher in checkpoints (a resumed run must
	// have the same) and model metadata, for example its policy spec.
	TeacherName string

	// Progress, if set, is called after every round of episodes.
	Progress func(EpisodeStats)

	// Resume, if set, continues the run that wrote it instead of starting
	// anew: the result is the one that run would have given had it not
	// stopped. It must come from a run with the same settings (the same
	// Config but for Episode, Progress and the checkpoint fields, and
	// an Episode source that gives the same episodes); Train names every
	// setting that differs and refuses.
	Resume *Checkpoint
	// Checkpoint, if set, is given the run's state after every round that
	// completes a multiple of CheckpointEvery episodes, and, if ctx ends
	// the run, the state after its last complete round; save it there (see
	// Checkpoint). An error it returns ends the run.
	Checkpoint func(*Checkpoint) error
	// CheckpointEvery is the number of episodes between checkpoints; 0
	// leaves only the one at an interruption.
	CheckpointEvery int
	// CheckpointMeta is every checkpoint's Meta.
	CheckpointMeta map[string]string

	// ValidateSeeds, if any, select the weights Train returns as Best: after
	// every round that completes a multiple of ValidateEvery episodes, and
	// after the last, the greedy policy of the current weights runs on
	// Episode(seed) of each, to its end (not EpisodeTime: the whole trace,
	// as an evaluation runs it), and the round's Validation is the mean FCT
	// slowdown of their flows together. Keep them apart from the
	// evaluation's seeds.
	ValidateSeeds []uint64
	// ValidateSets, if any, are the validation runs instead of
	// ValidateSeeds (which must then be empty): each set's seeds run on its
	// own Episode, and the round's Validation is the geometric mean over
	// the sets of each one's mean FCT slowdown, so that every set (a
	// curriculum's scenario) weighs the same whatever its slowdowns.
	ValidateSets []ValidateSet
	// ValidateEvery is the number of episodes between validations; 0 means
	// only after the last round.
	ValidateEvery int
}

// ValidateSet is one set of validation runs: Episode's episodes of Seeds,
// scored together as one evaluation scores its seeds (the mean slowdown
// of all their flows).
type ValidateSet struct {
	Name    string
	Episode func(seed uint64) (*topo.Fabric, []trace.Flow, error)
	Events  func(seed uint64, f *topo.Fabric) ([]topo.LinkEvent, error) // as Config.Events
	Seeds   []uint64
}

// validateSets returns the validation runs: ValidateSets, or the one set
// of ValidateSeeds on Episode.
func (c *Config) validateSets() []ValidateSet {
	if len(c.ValidateSets) > 0 {
		return c.ValidateSets
	}
	if len(c.ValidateSeeds) == 0 {
		return nil
	}
	return []ValidateSet{{Episode: c.Episode, Events: c.Events, Seeds: c.ValidateSeeds}}
}

// DefaultConfig returns the paper's training settings, those of the
// issue-3 model (docs/learning.md, "The issue-3 model"; the shipped model
// changes Objective, Teacher, FeatureSet and ActionSet). Episode must
// still be set.
func DefaultConfig() Config {
	return Config{
		Kind: "graphcc", Episodes: 200, EpisodeTime: 25 * topo.Millisecond,
		Interval: control.DefaultInterval, Gamma: 0.9, LR: 1e-3, Batch: 32, Buffer: 20000,
		Updates: 25, Warmup: 1000, TargetEvery: 200, EpsStart: 1, EpsEnd: 0.02, EpsDecay: 0.6,
		MaxGradNorm: 10, Shape: Convex, WeightQ: DefaultWeightQ,
	}
}

// fill gives the zero fields of c their defaults and checks c.
func (c *Config) fill() error {
	d := DefaultConfig()
	if c.Kind == "" {
		c.Kind = d.Kind
	}
	if c.Kind != "graphcc" && c.Kind != "acc" {
		return fmt.Errorf("train: kind %q (want graphcc or acc)", c.Kind)
	}
	if c.Episode == nil {
		return errors.New("train: no episode source")
	}
	c.setDefaults(d)
	return c.check()
}

// setDefaults gives the zero fields of c their values in d (Workers:
// GOMAXPROCS).
func (c *Config) setDefaults(d Config) {
	if c.Workers <= 0 {
		c.Workers = runtime.GOMAXPROCS(0)
	}
	setI := func(v *int, def int) {
		if *v == 0 {
			*v = def
		}
	}
	setF := func(v *float64, def float64) {
		if *v == 0 {
			*v = def
		}
	}
	setI(&c.Episodes, d.Episodes)
	setI(&c.Batch, d.Batch)
	setI(&c.Buffer, d.Buffer)
	setI(&c.Updates, d.Updates)
	setI(&c.Warmup, d.Warmup)
	setI(&c.TargetEvery, d.TargetEvery)
	setF(&c.Gamma, d.Gamma)
	setF(&c.LR, d.LR)
	setF(&c.EpsDecay, d.EpsDecay)
	setF(&c.MaxGradNorm, d.MaxGradNorm)
	setF(&c.WeightQ, d.WeightQ)
	if c.EpisodeTime == 0 {
		c.EpisodeTime = d.EpisodeTime
	}
	if c.Interval == 0 {
		c.Interval = d.Interval
	}
	if c.EpsStart == 0 && c.EpsEnd == 0 {
		c.EpsStart, c.EpsEnd = d.EpsStart, d.EpsEnd
	}
}

// check returns an error naming the first setting of the filled c that is
// out of range.
func (c *Config) check() error {
	switch {
	case c.Episodes < 1:
		return fmt.Errorf("train: episodes %d must be at least 1", c.Episodes)
	case !(c.Gamma > 0 && c.Gamma < 1):
		return fmt.Errorf("train: gamma %v must be in (0, 1)", c.Gamma)
	case !(c.LR > 0) || math.IsInf(c.LR, 0):
		return fmt.Errorf("train: learning rate %v must be positive and finite", c.LR)
	case c.Batch < 1 || c.Buffer < c.Batch:
		return fmt.Errorf("train: batch %d and buffer %d: need 1 <= batch <= buffer", c.Batch, c.Buffer)
	case c.Updates < 1:
		return fmt.Errorf("train: updates per episode %d must be at least 1", c.Updates)
	case c.Warmup < 1:
		return fmt.Errorf("train: warmup %d transitions must be at least 1", c.Warmup)
	case c.TargetEvery < 1:
		return fmt.Errorf("train: target refresh every %d updates: must be at least 1", c.TargetEvery)
	case !(c.EpsDecay > 0) || math.IsInf(c.EpsDecay, 0):
		return fmt.Errorf("train: epsilon decay over %v of the episodes: must be a positive fraction", c.EpsDecay)
	case !(c.MaxGradNorm > 0):
		return fmt.Errorf("train: gradient norm clip %v must be positive", c.MaxGradNorm)
	case !(c.WeightQ > 0 && c.WeightQ <= 1):
		return fmt.Errorf("train: queue weight %v must be in (0, 1]", c.WeightQ)
	case c.EpsStart < 0 || c.EpsStart > 1 || c.EpsEnd < 0 || c.EpsEnd > 1:
		return fmt.Errorf("train: epsilon %v to %v must be in [0, 1]", c.EpsStart, c.EpsEnd)
	case c.EpisodeTime <= 0 || c.Interval <= 0:
		return fmt.Errorf("train: episode time %d and interval %d must be positive", c.EpisodeTime, c.Interval)
	case c.CheckpointEvery < 0:
		return fmt.Errorf("train: checkpoint every %d episodes: must not be negative", c.CheckpointEvery)
	case c.Objective < PortObjective || c.Objective > ImitateObjective:
		return fmt.Errorf("train: unknown objective %v", c.Objective)
	case c.Objective == ImitateObjective && c.Teacher == nil:
		return errors.New("train: objective imitate needs a teacher")
	case c.Objective != ImitateObjective && c.Teacher != nil:
		return fmt.Errorf("train: a teacher is for objective imitate, not %v", c.Objective)
	case c.Objective == ImitateObjective && c.Kind != "graphcc":
		return errors.New("train: objective imitate trains GraphCC's agents only (not acc)")
	case c.ValidateEvery < 0:
		return fmt.Errorf("train: validate every %d episodes: must not be negative", c.ValidateEvery)
	case !slices.Contains(gnn.FeatureSets(), c.FeatureSet):
		return fmt.Errorf("train: unknown feature set %v", c.FeatureSet)
	case c.Kind == "acc" && c.FeatureSet != gnn.FeaturesPaper:
		return fmt.Errorf("train: feature set %v is GraphCC's: kind acc has its own state", c.FeatureSet)
	case !slices.Contains(gnn.ActionSets(), c.ActionSet):
		return fmt.Errorf("train: unknown action set %v", c.ActionSet)
	case c.Kind == "acc" && c.ActionSet != gnn.ActionsPaper:
		return fmt.Errorf("train: action set %v: kind acc takes only the paper's", c.ActionSet)
	case c.Kind == "acc" && c.Hosts:
		return errors.New("train: hosts as agents: kind acc has no host head")
	case !c.Hosts && !c.HostTable.IsGrid():
		return errors.New("train: a host action table of profiles is for hosts as agents (Hosts)")
	}
	if len(c.ValidateSets) > 0 && len(c.ValidateSeeds) > 0 {
		return errors.New("train: validation seeds and validation sets: give one of them")
	}
	for _, set := range c.validateSets() {
		if set.Episode == nil || len(set.Seeds) == 0 {
			return fmt.Errorf("train: validation set %q has no episodes or no seeds", set.Name)
		}
		seen := map[uint64]bool{}
		for _, s := range set.Seeds {
			if seen[s] {
				return fmt.Errorf("train: validation seed %d given twice", s)
			}
			seen[s] = true
		}
	}
	return nil
}

// EpisodeTransitions returns the most transitions an episode of c gives
// (its zero fields read as their defaults): one per control interval of
// EpisodeTime but the first, fewer if its flows all finish sooner.
func (c Config) EpisodeTransitions() int {
	c.setDefaults(DefaultConfig())
	return int(max(c.EpisodeTime/c.Interval-1, 0))
}

// MinEpisodes returns the fewest episodes of c (its zero fields read as
// their defaults) that can reach the first minibatch update, when every
// episode gives EpisodeTransitions; 0 if no number can.
func (c Config) MinEpisodes() int {
	c.setDefaults(DefaultConfig())
	need, per := max(c.Warmup, c.Batch), c.EpisodeTransitions()
	if c.Buffer < need || per == 0 {
		return 0
	}
	return (need + per - 1) / per
}

// checkLearns returns a *NoUpdatesError if the filled c cannot reach its
// first minibatch update.
func (c *Config) checkLearns() error {
	e := &NoUpdatesError{
		Episodes: c.Episodes, Warmup: c.Warmup, Batch: c.Batch, Buffer: c.Buffer,
		PerEpisode: c.EpisodeTransitions(), MinEpisodes: c.MinEpisodes(),
	}
	if e.MinEpisodes == 0 || c.Episodes < e.MinEpisodes {
		return e
	}
	return nil
}

func (c *Config) epsilon(episode int) float64 {
	frac := float64(episode) / (c.EpsDecay * float64(c.Episodes))
	if frac >= 1 {
		return c.EpsEnd
	}
	return c.EpsStart + (c.EpsEnd-c.EpsStart)*frac
}

// HardwareHosts returns the DCQCN constants c's simulated hardware gives
// the hosts (c.Params, the zero value read as replay.DefaultParams): a
// teacher's host labels when it gives none, and the first profile of a
// tuned host table (graphcc train --host-actions tuned:…).
func (c *Config) HardwareHosts() control.HostParams {
	p := c.Params
	if p == (replay.Params{}) {
		p = replay.DefaultParams()
	}
	return control.HostParamsAt(p.DCQCN, control.RefRate)
}
