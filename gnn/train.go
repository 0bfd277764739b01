package gnn

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"strings"
	"sync"

	"graphcc/control"
	"graphcc/metrics"
	"graphcc/replay"
	"graphcc/topo"
	"graphcc/trace"
)

// TrainConfig is one training run of multi-agent deep Q-learning on the
// simulator's control hook, or of imitation (ImitateObjective).
// DefaultTrainConfig gives the paper's settings (the issue-3 model's); the
// zero value of a field means its default.
type TrainConfig struct {
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

	Objective Objective     // what the agents are rewarded for; the zero value is the per-port reward of docs/learning.md
	Shape     RewardShape   // reward's queue term; the zero value is Linear, DefaultTrainConfig sets Convex (it trained the better policy; docs/learning.md, "Reward")
	WeightQ   float64       // weight of the queue term (0.7)
	Features  FeatureConfig // feature and reward scales
	// FeatureSet is the GraphCC network's inputs (the zero value is the
	// paper's); the model file records it. Kind "acc" takes only the zero
	// value: ACC's state is its own.
	FeatureSet FeatureSet
	// ActionSet is the table of settings the GraphCC agents choose among
	// (the zero value is the paper's); the model file records it. Kind
	// "acc" takes only the zero value.
	ActionSet ActionSet
	// Hosts trains a GraphCC model with a host head: every host NIC port
	// is an agent too, choosing its DCQCN constants from the host action
	// table (HostAction) every interval, epsilon-greedy like the switch
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
	// zero value is the grid, HostAction); the model file records it.
	// Without Hosts it must be the grid.
	HostTable HostTable
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
	// TrainConfig but for Episode, Progress and the checkpoint fields, and
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
	Events  func(seed uint64, f *topo.Fabric) ([]topo.LinkEvent, error) // as TrainConfig.Events
	Seeds   []uint64
}

// validateSets returns the validation runs: ValidateSets, or the one set
// of ValidateSeeds on Episode.
func (c *TrainConfig) validateSets() []ValidateSet {
	if len(c.ValidateSets) > 0 {
		return c.ValidateSets
	}
	if len(c.ValidateSeeds) == 0 {
		return nil
	}
	return []ValidateSet{{Episode: c.Episode, Events: c.Events, Seeds: c.ValidateSeeds}}
}

// linkEvents returns events(seed, f), or none if events is nil.
func linkEvents(events func(uint64, *topo.Fabric) ([]topo.LinkEvent, error), seed uint64, f *topo.Fabric) ([]topo.LinkEvent, error) {
	if events == nil {
		return nil, nil
	}
	return events(seed, f)
}

// DefaultTrainConfig returns the paper's training settings, those of the
// issue-3 model (docs/learning.md, "The issue-3 model"; the shipped model
// changes Objective, Teacher, FeatureSet and ActionSet). Episode must
// still be set.
func DefaultTrainConfig() TrainConfig {
	return TrainConfig{
		Kind: "graphcc", Episodes: 200, EpisodeTime: 25 * topo.Millisecond,
		Interval: control.DefaultInterval, Gamma: 0.9, LR: 1e-3, Batch: 32, Buffer: 20000,
		Updates: 25, Warmup: 1000, TargetEvery: 200, EpsStart: 1, EpsEnd: 0.02, EpsDecay: 0.6,
		MaxGradNorm: 10, Shape: Convex, WeightQ: DefaultWeightQ,
	}
}

// fill gives the zero fields of c their defaults and checks c.
func (c *TrainConfig) fill() error {
	d := DefaultTrainConfig()
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
func (c *TrainConfig) setDefaults(d TrainConfig) {
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
func (c *TrainConfig) check() error {
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
	case !slices.Contains(FeatureSets(), c.FeatureSet):
		return fmt.Errorf("train: unknown feature set %v", c.FeatureSet)
	case c.Kind == "acc" && c.FeatureSet != FeaturesPaper:
		return fmt.Errorf("train: feature set %v is GraphCC's: kind acc has its own state", c.FeatureSet)
	case !slices.Contains(ActionSets(), c.ActionSet):
		return fmt.Errorf("train: unknown action set %v", c.ActionSet)
	case c.Kind == "acc" && c.ActionSet != ActionsPaper:
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

// ErrNoUpdates is wrapped by the error of a training run that cannot
// reach, or did not reach, its first minibatch update: its weights would be
// the initial ones. The error is a *NoUpdatesError.
var ErrNoUpdates = errors.New("no learning updates")

// NoUpdatesError is the error of a training run that ends without a
// minibatch update. NewTrainer returns it when the config cannot learn
// (Ran false): the replay buffer holds fewer transitions than the first
// update needs, or the episodes give fewer than that even at their
// longest; Run returns it when the episodes, ending early as their flows
// finished, gave fewer (Ran true).
type NoUpdatesError struct {
	Episodes int // TrainConfig.Episodes
	Warmup   int // TrainConfig.Warmup
	Batch    int // TrainConfig.Batch: the first update also needs a batch
	Buffer   int // TrainConfig.Buffer
	// PerEpisode is the most transitions an episode gives (see
	// TrainConfig.EpisodeTransitions).
	PerEpisode int
	// Ran reports that the episodes were simulated; they gave Transitions.
	Ran         bool
	Transitions int64
	// MinEpisodes is the fewest episodes that would reach the first update
	// (at the transitions per episode of this run when Ran), 0 if no
	// number would.
	MinEpisodes int
}

// Need is the number of transitions the replay buffer holds before the
// first update: the larger of Warmup and Batch.
func (e *NoUpdatesError) Need() int { return max(e.Warmup, e.Batch) }

// Error says how many episodes gave no update, why, and how many would.
func (e *NoUpdatesError) Error() string {
	what := "the warmup"
	if e.Batch > e.Warmup {
		what = "a batch"
	}
	head := fmt.Sprintf("train: %d episodes give 0 learning updates: the first comes after %d transitions (%s)", e.Episodes, e.Need(), what)
	if e.Ran {
		head = strings.Replace(head, " give ", " gave ", 1)
	}
	switch {
	case e.Buffer < e.Need():
		return fmt.Sprintf("%s, more than the replay buffer's %d", head, e.Buffer)
	case e.MinEpisodes == 0:
		return fmt.Sprintf("%s, and no episode gives a transition", head)
	case e.Ran:
		return fmt.Sprintf("%s, and theirs gave %d (their flows finished early); raise episodes to at least %d (at that rate)", head, e.Transitions, e.MinEpisodes)
	}
	return fmt.Sprintf("%s, and an episode gives at most %d; raise episodes to at least %d", head, e.PerEpisode, e.MinEpisodes)
}

// Unwrap returns ErrNoUpdates.
func (e *NoUpdatesError) Unwrap() error { return ErrNoUpdates }

// EpisodeTransitions returns the most transitions an episode of c gives
// (its zero fields read as their defaults): one per control interval of
// EpisodeTime but the first, fewer if its flows all finish sooner.
func (c TrainConfig) EpisodeTransitions() int {
	c.setDefaults(DefaultTrainConfig())
	return int(max(c.EpisodeTime/c.Interval-1, 0))
}

// MinEpisodes returns the fewest episodes of c (its zero fields read as
// their defaults) that can reach the first minibatch update, when every
// episode gives EpisodeTransitions; 0 if no number can.
func (c TrainConfig) MinEpisodes() int {
	c.setDefaults(DefaultTrainConfig())
	need, per := max(c.Warmup, c.Batch), c.EpisodeTransitions()
	if c.Buffer < need || per == 0 {
		return 0
	}
	return (need + per - 1) / per
}

// checkLearns returns a *NoUpdatesError if the filled c cannot reach its
// first minibatch update.
func (c *TrainConfig) checkLearns() error {
	e := &NoUpdatesError{
		Episodes: c.Episodes, Warmup: c.Warmup, Batch: c.Batch, Buffer: c.Buffer,
		PerEpisode: c.EpisodeTransitions(), MinEpisodes: c.MinEpisodes(),
	}
	if e.MinEpisodes == 0 || c.Episodes < e.MinEpisodes {
		return e
	}
	return nil
}

// EpisodeStats describes one round of episodes (Workers of them, simulated
// in parallel with one set of weights) and the learning that followed.
type EpisodeStats struct {
	Episode    int     // episodes done
	Epsilon    float64 // exploration rate of the round
	MeanReward float64 // mean per-agent reward over the round's steps
	Loss       float64 // mean Huber loss of the round's updates (NaN before learning starts)
	Updates    int     // minibatch updates so far
	Slowdown   float64 // mean FCT slowdown of the flows the round's episodes finished
	// Validation is the mean FCT slowdown of the greedy policy on the
	// validation seeds after the round (TrainConfig.ValidateSeeds), or the
	// geometric mean over the validation sets of theirs, NaN when the
	// round was not validated.
	Validation float64
	// ValidationBy are the mean slowdowns of each validation set
	// (TrainConfig.ValidateSets), when the round was validated on sets.
	ValidationBy []float64
}

// TrainResult is a trained network: Model for graphcc, ACC for acc, the
// weights after the last round.
type TrainResult struct {
	Model *Model
	ACC   []*MLPNet
	// ACCPorts names the port of each network of ACC (ACC.Ports).
	ACCPorts []string
	Stats    []EpisodeStats
	// With validation seeds, Best is the network of the lowest validation
	// slowdown (the earliest of ties), validated after BestEpisode
	// episodes; nil without them.
	Best        *TrainResult
	BestEpisode int
}

// qnet is what the trainer needs of a network: every agent's Q values for a
// state, gradients, and its parameters as one vector.
type qnet interface {
	params() []float64
	newScratch() qscratch
	clone() qnet
	copyFrom(qnet)
}

// qscratch holds one goroutine's workspaces for a qnet.
// A state and its Q values are on the reference fabric's layout; fab is
// the index of the transition's fabric in the replay buffer's Fabrics.
type qscratch interface {
	forward(fab int, state, q []float64)
	backward(fab int, dq, grad []float64)
}

type mpnnNet struct {
	m    *Model
	vars *variantSet // shared by the run's networks
}

func (n *mpnnNet) params() []float64 { return n.m.Params }
func (n *mpnnNet) clone() qnet       { return &mpnnNet{m: n.m.Clone(), vars: n.vars} }
func (n *mpnnNet) copyFrom(o qnet)   { n.m.CopyFrom(o.(*mpnnNet).m) }
func (n *mpnnNet) newScratch() qscratch {
	return &mpnnScratch{m: n.m, vars: n.vars, ws: []*Workspace{NewWorkspace(n.m, n.vars.ref.Graph())}}
}

// mpnnScratch passes messages over each transition's own fabric: a
// variant's state is gathered from the reference layout, its Q values and
// their gradients scattered back and forth.
type mpnnScratch struct {
	m    *Model
	vars *variantSet
	ws   []*Workspace // per fabric, made at its first transition
	x, q []float64    // a variant's state, and its Q values or their gradient
}

func (s *mpnnScratch) workspace(fab int) *Workspace {
	for len(s.ws) <= fab {
		s.ws = append(s.ws, nil)
	}
	if s.ws[fab] == nil {
		s.ws[fab] = NewWorkspace(s.m, s.vars.list[fab].f.Graph())
	}
	return s.ws[fab]
}

func (s *mpnnScratch) forward(fab int, x, q []float64) {
	ws := s.workspace(fab)
	if fab == 0 {
		s.m.Forward(ws, x, q)
		return
	}
	v := s.vars.list[fab]
	s.x = grow(s.x, len(v.port)*s.m.Features)
	s.q = grow(s.q, len(v.agent)*NumActions)
	gatherRows(s.x, x, v.port, s.m.Features)
	s.m.Forward(ws, s.x, s.q)
	clear(q) // the rows of the agents v lacks: NoAction, never read
	scatterRows(q, s.q, v.agent, NumActions)
}

func (s *mpnnScratch) backward(fab int, dq, grad []float64) {
	ws := s.workspace(fab)
	if fab == 0 {
		s.m.Backward(ws, dq, grad)
		return
	}
	v := s.vars.list[fab]
	s.q = grow(s.q, len(v.agent)*NumActions)
	gatherRows(s.q, dq, v.agent, NumActions)
	s.m.Backward(ws, s.q, grad)
}

// grow returns b resliced to n, reallocated if its capacity is short.
func grow(b []float64, n int) []float64 {
	if cap(b) < n {
		return make([]float64, n)
	}
	return b[:n]
}

// accNet is ACC's independent networks with their parameters laid out in one
// vector (each net's Params is a view into it).
type accNet struct {
	nets   []*MLPNet
	flat   []float64
	agents []topo.PortID // nets[i] is the agent of agents[i] of the reference fabric
	ports  []string      // and of the port named ports[i]
}

func newACCNet(nets []*MLPNet, agents []topo.PortID, ports []string) *accNet {
	n := 0
	for _, m := range nets {
		n += len(m.Params)
	}
	a := &accNet{flat: make([]float64, 0, n), agents: agents, ports: ports}
	for _, m := range nets {
		off := len(a.flat)
		a.flat = append(a.flat, m.Params...)
		a.nets = append(a.nets, &MLPNet{Layer: m.Layer, Params: a.flat[off:len(a.flat):len(a.flat)]})
	}
	return a
}

func (a *accNet) params() []float64 { return a.flat }
func (a *accNet) clone() qnet       { return newACCNet(a.nets, a.agents, a.ports) }
func (a *accNet) copyFrom(o qnet)   { copy(a.flat, o.(*accNet).flat) }
func (a *accNet) newScratch() qscratch {
	s := &accScratch{a: a}
	for _, n := range a.nets {
		s.ws = append(s.ws, NewMLPWorkspace(n, 1))
	}
	return s
}

type accScratch struct {
	a  *accNet
	ws []*MLPWorkspace
}

func (s *accScratch) forward(_ int, x, q []float64) {
	for i, p := range s.a.agents {
		row := x[int(p)*ACCNumFeatures : (int(p)+1)*ACCNumFeatures]
		s.a.nets[i].Forward(s.ws[i], row, q[i*NumActions:(i+1)*NumActions])
	}
}

func (s *accScratch) backward(_ int, dq, grad []float64) {
	off := 0
	for i, n := range s.a.nets {
		k := len(n.Params)
		n.Backward(s.ws[i], dq[i*NumActions:(i+1)*NumActions], grad[off:off+k])
		off += k
	}
}

// Train runs multi-agent double deep Q-learning: rounds of Workers episodes
// simulated in parallel with epsilon-greedy exploration per agent, their
// global transitions (every agent's state, action and reward) merged in a
// fixed order into a replay buffer, then minibatch updates (double-DQN
// targets from a target network, Huber loss, Adam, gradient-norm clipping)
// with each minibatch's gradient shared among Workers goroutines and summed
// in a fixed order. The same config and seed give the same weights.
//
// Train is NewTrainer and Run. A run that would end, or ended, without a
// single minibatch update fails with an error wrapping ErrNoUpdates.
func Train(ctx context.Context, c TrainConfig) (*TrainResult, error) {
	t, err := NewTrainer(c)
	if err != nil {
		return nil, err
	}
	return t.Run(ctx)
}

// Trainer is one training run (see Train): its networks, optimizer, replay
// buffer and random sources, and how far it has come. Run drives it round
// by round; each phase of a round is a method: collect simulates the
// round's episodes, store puts their transitions in the replay buffer,
// learn does the minibatch updates, validateRound scores the weights on
// the validation seeds, and checkpoint hands the state after the round to
// TrainConfig.Checkpoint. TrainConfig.Progress records each round.
type Trainer struct {
	c TrainConfig // filled

	rootSrc, samplerSrc *rand.PCG
	root                *rand.Rand // the episodes' seeds
	sampler             *rand.Rand // minibatch sampling

	ref            *topo.Fabric // the fabric of the agents and of the replay buffer's layout
	vars           *variantSet
	online, target qnet
	buf            *ReplayBuffer
	adam           *Adam
	lrn            *learner
	fingerprint    map[string]string // Checkpoint.Config of the run

	res           TrainResult // the networks trained and the rounds' Stats so far
	done, updates int         // episodes and minibatch updates done

	// The best validated weights so far, nil without validation seeds;
	// bestEpisode is -1 before any validation.
	best        qnet
	bestEpisode int
	bestScore   float64

	ran bool // Run was called
}

// NewTrainer checks and fills c (its zero fields take their defaults),
// builds the first episode's fabric, initializes the networks from c.Seed
// and, with c.Resume, restores that checkpoint's state. A config that
// cannot reach its first minibatch update (too few episodes for the
// warmup, a replay buffer smaller than it) is refused with a
// *NoUpdatesError before anything is simulated.
func NewTrainer(c TrainConfig) (*Trainer, error) {
	if err := c.fill(); err != nil {
		return nil, err
	}
	if err := c.checkLearns(); err != nil {
		return nil, err
	}
	t := &Trainer{c: c, rootSrc: rand.NewPCG(c.Seed, 0x747261696e), samplerSrc: rand.NewPCG(c.Seed, 0x73616d70)}
	t.root, t.sampler = rand.New(t.rootSrc), rand.New(t.samplerSrc)
	f0, _, err := c.Episode(t.root.Uint64())
	if err != nil {
		return nil, fmt.Errorf("train: episode: %w", err)
	}
	t.ref = f0
	if c.Fabric != nil {
		t.ref = c.Fabric
	}
	t.init()
	if c.Resume != nil {
		if err := t.resume(c.Resume); err != nil {
			return nil, fmt.Errorf("train: resume: %w", err)
		}
	}
	return t, nil
}

// init makes the run's networks (the online one from the seed's initial
// weights), optimizer, replay buffer and learner.
func (t *Trainer) init() {
	c := &t.c
	agents := t.ref.Agents()
	perPort := c.FeatureSet.Len()
	initR := rand.New(rand.NewPCG(c.Seed, 0x696e6974))
	t.vars = &variantSet{ref: t.ref}
	if c.Hosts {
		agents = append(agents, hostAgents(t.ref)...)
	}
	if c.Kind == "graphcc" {
		shape := c.FeatureSet.Shape()
		if c.Hosts {
			shape.HostActions = c.HostTable.Len()
		}
		t.res.Model = NewModelShape(shape, initR) // NewModelSet's weights, and the host head's after them
		t.res.Model.FeatureSet = c.FeatureSet
		t.res.Model.ActionSet = c.ActionSet
		if c.Hosts {
			t.res.Model.HostTable = c.HostTable
		}
		t.online = &mpnnNet{m: t.res.Model, vars: t.vars}
	} else {
		perPort = ACCNumFeatures
		acc := NewACC(t.ref, c.Features, initR)
		an := newACCNet(acc.Nets, agents, acc.Ports())
		t.online = an
		t.res.ACC, t.res.ACCPorts = an.nets, an.ports
	}
	t.target = t.online.clone()
	t.buf = NewReplayBufferLen(c.Buffer, len(t.ref.Ports)*perPort, len(agents))
	t.adam = NewAdam(len(t.online.params()), c.LR)
	t.lrn = newLearner(t.online, t.target, *c, len(t.ref.Ports)*perPort, len(t.ref.Agents()), len(agents)-len(t.ref.Agents()))
	t.fingerprint = trainFingerprint(c)
	t.bestEpisode, t.bestScore = -1, math.Inf(1)
	if len(c.validateSets()) > 0 {
		t.best = t.online.clone()
	}
}

// resume restores the state of the run that wrote ck, after checking that
// it is this run's (the same settings and shapes).
func (t *Trainer) resume(ck *Checkpoint) error {
	if err := ck.checkResume(t.fingerprint); err != nil {
		return err
	}
	if err := ck.fits(t.online, t.buf); err != nil {
		return err
	}
	if err := errors.Join(t.rootSrc.UnmarshalBinary(ck.Root), t.samplerSrc.UnmarshalBinary(ck.Sampler)); err != nil {
		return fmt.Errorf("%w: random state: %w", ErrCheckpoint, err)
	}
	copy(t.online.params(), ck.Online)
	copy(t.target.params(), ck.Target)
	copy(t.adam.m, ck.AdamM)
	copy(t.adam.v, ck.AdamV)
	t.adam.t = ck.AdamT
	t.buf = ck.Buffer
	if err := t.vars.sync(t.buf.Fabrics()); err != nil {
		return fmt.Errorf("%w: %w", ErrCheckpoint, err)
	}
	t.updates, t.done = ck.Updates, ck.Episodes
	t.res.Stats = slices.Clone(ck.Stats)
	if t.best != nil {
		copy(t.best.params(), ck.Best)
		t.bestEpisode, t.bestScore = ck.BestEpisode, ck.BestValidation
	}
	return nil
}

// Run trains round after round until the configured episodes are done and
// returns the result. If ctx ends it, Run stops after the last complete
// round, hands its state to TrainConfig.Checkpoint and returns an error
// wrapping ctx's cause. A run whose episodes ended without a minibatch
// update (they gave fewer transitions than the warmup) returns a
// *NoUpdatesError, not the untrained weights. A Trainer runs once.
func (t *Trainer) Run(ctx context.Context) (*TrainResult, error) {
	if t.ran {
		return nil, errors.New("train: the trainer has run already")
	}
	t.ran = true
	for t.done < t.c.Episodes {
		if err := t.round(ctx); err != nil {
			return nil, err
		}
	}
	if t.updates == 0 {
		return nil, t.noUpdates()
	}
	return t.result(), nil
}

// noUpdates is the error of a run whose episodes ended without an update.
func (t *Trainer) noUpdates() error {
	c := &t.c
	e := &NoUpdatesError{
		Episodes: c.Episodes, Warmup: c.Warmup, Batch: c.Batch, Buffer: c.Buffer,
		PerEpisode: c.EpisodeTransitions(), Ran: true, Transitions: t.buf.Added(),
	}
	if n := e.Transitions; n > 0 {
		// at the run's mean transitions per episode
		e.MinEpisodes = int((int64(e.Need())*int64(c.Episodes) + n - 1) / n)
	}
	return e
}

// round runs one round: its episodes, their transitions stored, the
// minibatch updates, the validation and the checkpoint due after it. A
// round whose episodes fail changes nothing: the state stays that of the
// last complete round.
func (t *Trainer) round(ctx context.Context) error {
	rootState, err := t.rootSrc.MarshalBinary()
	if err != nil {
		return fmt.Errorf("train: %w", err)
	}
	if ctx.Err() != nil {
		return t.interrupted(ctx, rootState)
	}
	n := min(t.c.Workers, t.c.Episodes-t.done)
	eps := t.c.epsilon(t.done)
	outs := t.collect(ctx, n, eps)
	for i := range outs {
		if outs[i].err == nil {
			continue
		}
		if ctx.Err() != nil {
			return t.interrupted(ctx, rootState)
		}
		return fmt.Errorf("train: episode %d: %w", t.done+i+1, outs[i].err)
	}
	st, err := t.store(outs)
	if err != nil {
		return err
	}
	st.Episode, st.Epsilon, st.Loss = t.done+n, eps, math.NaN()
	if t.buf.Len() >= max(t.c.Warmup, t.c.Batch) {
		st.Loss = t.learn(t.c.Updates * n)
	}
	st.Updates = t.updates
	st.Validation = math.NaN()
	if t.best != nil && (t.done+n == t.c.Episodes || crosses(t.done, t.done+n, t.c.ValidateEvery)) {
		if st.Validation, st.ValidationBy, err = t.validateRound(ctx, t.done+n); err != nil {
			return err
		}
	}
	t.done += n
	t.res.Stats = append(t.res.Stats, st)
	if t.c.Progress != nil {
		t.c.Progress(st)
	}
	if crosses(t.done-n, t.done, t.c.CheckpointEvery) {
		rootState, err := t.rootSrc.MarshalBinary()
		if err == nil {
			err = t.checkpoint(rootState)
		}
		if err != nil {
			return fmt.Errorf("train: checkpoint after %d episodes: %w", t.done, err)
		}
	}
	return nil
}

// collect simulates the round's n episodes in parallel, each with the seed
// drawn for it in turn and the weights of the round's start, exploring
// with eps.
func (t *Trainer) collect(ctx context.Context, n int, eps float64) []episodeOut {
	seeds := make([]uint64, n)
	for i := range seeds {
		seeds[i] = t.root.Uint64()
	}
	snapshot := t.online.clone() // the weights every episode of the round uses
	outs := make([]episodeOut, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			outs[i] = runEpisode(ctx, &t.c, snapshot, seeds[i], eps, t.ref)
		}()
	}
	wg.Wait()
	return outs
}

// store adds the transitions of the round's episodes to the replay buffer,
// in episode order, and returns the round's mean reward and slowdown.
func (t *Trainer) store(outs []episodeOut) (EpisodeStats, error) {
	var st EpisodeStats
	var rsum float64
	var rn, fin int
	nA := len(t.ref.Agents()) // the switch agents: the host agents' rewards are not in MeanReward
	for i := range outs {
		for _, s := range outs[i].steps {
			t.buf.AddOn(s.fabric, s.prev, s.actions, s.rewards, s.next)
			for v, r := range s.rewards[:nA] {
				if s.actions[v] != NoAction {
					rsum += r
					rn++
				}
			}
		}
		st.Slowdown += outs[i].slowdownSum
		fin += outs[i].finished
	}
	if err := t.vars.sync(t.buf.Fabrics()); err != nil {
		return st, fmt.Errorf("train: %w", err)
	}
	for i := range outs {
		if v := outs[i].variant; v != nil {
			if err := t.vars.check(v); err != nil {
				return st, fmt.Errorf("train: episode %d: %w", t.done+i+1, err)
			}
		}
	}
	if rn > 0 {
		st.MeanReward = rsum / float64(rn)
	}
	if fin > 0 {
		st.Slowdown /= float64(fin)
	}
	return st, nil
}

// learn does k minibatch updates, refreshing the target network every
// TargetEvery updates of the run, and returns their mean loss.
func (t *Trainer) learn(k int) float64 {
	var lsum float64
	for range k {
		lsum += t.lrn.update(t.buf, t.sampler, t.adam)
		t.updates++
		if t.updates%t.c.TargetEvery == 0 {
			t.target.copyFrom(t.online)
		}
	}
	return lsum / float64(k)
}

// validateRound scores the current weights on the validation seeds after
// episodes episodes, keeps them as the best if they beat the best so far,
// and returns their score. The round is learnt already: validation
// finishes even if ctx ends (it takes a few seconds), so that the state
// after the round, validated, is what an interruption checkpoints.
func (t *Trainer) validateRound(ctx context.Context, episodes int) (float64, []float64, error) {
	v, by, err := validate(context.WithoutCancel(ctx), &t.c, t.online)
	if err != nil {
		return 0, nil, fmt.Errorf("train: validation after %d episodes: %w", episodes, err)
	}
	if v < t.bestScore {
		t.best.copyFrom(t.online)
		t.bestEpisode, t.bestScore = episodes, v
	}
	return v, by, nil
}

// checkpoint hands the state after the last complete round to
// TrainConfig.Checkpoint; rootState is the episode seeds' source then.
func (t *Trainer) checkpoint(rootState []byte) error {
	if t.c.Checkpoint == nil {
		return nil
	}
	samplerState, err := t.samplerSrc.MarshalBinary()
	if err != nil {
		return err
	}
	ck := &Checkpoint{
		Config: t.fingerprint, Meta: t.c.CheckpointMeta, Episodes: t.done, Updates: t.updates, Stats: t.res.Stats,
		Online: t.online.params(), Target: t.target.params(), AdamM: t.adam.m, AdamV: t.adam.v, AdamT: t.adam.t,
		Root: rootState, Sampler: samplerState, Buffer: t.buf, BestEpisode: -1,
	}
	if t.best != nil {
		ck.Best, ck.BestEpisode, ck.BestValidation = t.best.params(), t.bestEpisode, t.bestScore
	}
	return t.c.Checkpoint(ck)
}

// interrupted is the error of a run that ctx ended after the episodes done,
// with their checkpoint.
func (t *Trainer) interrupted(ctx context.Context, rootState []byte) error {
	err := fmt.Errorf("train: after %d episodes: %w", t.done, context.Cause(ctx))
	if cerr := t.checkpoint(rootState); cerr != nil {
		err = errors.Join(err, fmt.Errorf("train: checkpoint: %w", cerr))
	}
	return err
}

// result is the run's TrainResult: the networks and the rounds' Stats,
// and with validation seeds the best validated networks.
func (t *Trainer) result() *TrainResult {
	res := &t.res
	if t.best != nil && t.bestEpisode >= 0 {
		res.Best, res.BestEpisode = &TrainResult{}, t.bestEpisode
		switch b := t.best.(type) {
		case *mpnnNet:
			res.Best.Model = b.m
		case *accNet:
			res.Best.ACC, res.Best.ACCPorts = b.nets, b.ports
		}
	}
	return res
}

// validate runs the greedy policy of net's weights on the episode of every
// validation seed, to its end, in parallel (c.Workers at a time), and
// returns the mean FCT slowdown of all their finished flows together, as
// evaluation computes it (metrics.SlowdownStats; NaN if none finished).
func validate(ctx context.Context, c *TrainConfig, net qnet) (float64, []float64, error) {
	type job struct {
		set  int
		seed uint64
		fct  []trace.FCT
		err  error
	}
	sets := c.validateSets()
	var jobs []job
	for i, set := range sets {
		for _, seed := range set.Seeds {
			jobs = append(jobs, job{set: i, seed: seed})
		}
	}
	sem := make(chan struct{}, c.Workers)
	var wg sync.WaitGroup
	for i := range jobs {
		wg.Go(func() {
			sem <- struct{}{}
			defer func() { <-sem }()
			j := &jobs[i]
			j.fct, j.err = validateRun(ctx, c, net, &sets[j.set], j.seed)
			if j.err != nil && sets[j.set].Name != "" {
				j.err = fmt.Errorf("%s: %w", sets[j.set].Name, j.err)
			}
		})
	}
	wg.Wait()
	by := make([]float64, len(sets))
	logSum := 0.0
	for i := range sets {
		var all []trace.FCT // in seed order, as evaluation merges its seeds
		for _, j := range jobs {
			if j.err != nil {
				return 0, nil, j.err
			}
			if j.set == i {
				all = append(all, j.fct...)
			}
		}
		by[i] = math.NaN()
		if st := metrics.SlowdownStats(all, nil); st.Count > 0 {
			by[i] = st.Mean
		}
		logSum += math.Log(by[i])
	}
	if len(c.ValidateSets) == 0 {
		return by[0], nil, nil
	}
	return math.Exp(logSum / float64(len(sets))), by, nil
}

// validateRun runs the greedy policy of net on set's episode of seed to
// its end and returns the FCT records.
func validateRun(ctx context.Context, c *TrainConfig, net qnet, set *ValidateSet, seed uint64) ([]trace.FCT, error) {
	f, flows, err := set.Episode(seed)
	if err != nil {
		return nil, fmt.Errorf("seed %d: %w", seed, err)
	}
	events, err := linkEvents(set.Events, seed, f)
	if err != nil {
		return nil, fmt.Errorf("seed %d: %w", seed, err)
	}
	var pol control.Policy
	switch n := net.(type) {
	case *mpnnNet:
		g := NewGraphCC(n.m, f, c.Features)
		defer g.Inference().Close()
		pol = g
	case *accNet:
		a, err := NewACCFrom(n.nets, n.ports, f, c.Features)
		if err != nil {
			return nil, fmt.Errorf("seed %d: %w", seed, err)
		}
		pol = a
	}
	out, err := replay.RunContext(ctx, replay.Config{
		Fabric: f, Flows: flows, Params: c.Params, Seed: seed, Policy: pol, Interval: c.Interval, LinkEvents: events,
	})
	if err != nil {
		return nil, fmt.Errorf("seed %d: %w", seed, err)
	}
	return out.FCT, nil
}

// fits checks that ck's networks and replay buffer have the shapes of
// online and buf, the run's own.
func (ck *Checkpoint) fits(online qnet, buf *ReplayBuffer) error {
	b := ck.Buffer
	n := len(online.params())
	switch {
	case len(ck.Online) != n || len(ck.Target) != n || len(ck.AdamM) != n || len(ck.AdamV) != n:
		return fmt.Errorf("%w: %d parameters (target %d, Adam %d and %d), the network has %d",
			ErrCheckpoint, len(ck.Online), len(ck.Target), len(ck.AdamM), len(ck.AdamV), n)
	case b == nil:
		return fmt.Errorf("%w: no replay buffer", ErrCheckpoint)
	case b.cap != buf.cap || b.featLen != buf.featLen || b.agents != buf.agents:
		return fmt.Errorf("%w: replay buffer of %d transitions of %d features and %d agents, the run's has %d, %d and %d",
			ErrCheckpoint, b.cap, b.featLen, b.agents, buf.cap, buf.featLen, buf.agents)
	case ck.Episodes > 0 && len(ck.Stats) == 0:
		return fmt.Errorf("%w: %d episodes done but no round statistics", ErrCheckpoint, ck.Episodes)
	case len(ck.Best) != n:
		return fmt.Errorf("%w: %d best parameters, the network has %d", ErrCheckpoint, len(ck.Best), n)
	case ck.BestEpisode < -1 || ck.BestEpisode > ck.Episodes:
		return fmt.Errorf("%w: best episode %d of %d", ErrCheckpoint, ck.BestEpisode, ck.Episodes)
	}
	return nil
}

// crosses reports whether a round from from to to episodes done completes
// a multiple of every (never for every <= 0).
func crosses(from, to, every int) bool {
	return every > 0 && to/every > from/every
}

func (c *TrainConfig) epsilon(episode int) float64 {
	frac := float64(episode) / (c.EpsDecay * float64(c.Episodes))
	if frac >= 1 {
		return c.EpsEnd
	}
	return c.EpsStart + (c.EpsEnd-c.EpsStart)*frac
}

type stepRecord struct {
	fabric     string // the tag of the episode's fabric: fabricVariant.key
	prev, next []float64
	actions    []int
	rewards    []float64
}

type episodeOut struct {
	variant     *fabricVariant // nil on the reference fabric
	steps       []stepRecord
	slowdownSum float64
	finished    int
	err         error
}

// runEpisode simulates one episode with the weights of net, exploring with
// epsilon, and returns its transitions in the layout of the reference
// fabric ref (TrainConfig.Fabric).
func runEpisode(ctx context.Context, c *TrainConfig, net qnet, seed uint64, eps float64, ref *topo.Fabric) (out episodeOut) {
	f, flows, err := c.Episode(seed)
	if err != nil {
		return episodeOut{err: err}
	}
	events, err := linkEvents(c.Events, seed, f)
	if err != nil {
		return episodeOut{err: fmt.Errorf("seed %d: %w", seed, err)}
	}
	v, err := variantOf(f, ref)
	if err != nil {
		return episodeOut{err: fmt.Errorf("seed %d: %w", seed, err)}
	}
	out.variant = v
	if v != nil && c.Hosts {
		return episodeOut{err: fmt.Errorf("seed %d: hosts as agents on a fabric with failed links: not supported", seed)}
	}
	er := newEpisodeReward(c, f)
	perPort := c.FeatureSet.Len()
	if _, ok := net.(*accNet); ok {
		perPort = ACCNumFeatures
	}
	record := func(prev []float64, actions []int, rewards []float64, next []float64) {
		er.set(rewards)
		if v != nil {
			out.steps = append(out.steps, v.remap(perPort, len(ref.Ports), len(ref.Agents()), prev, actions, rewards, next))
			return
		}
		out.steps = append(out.steps, stepRecord{
			prev: append([]float64(nil), prev...), next: append([]float64(nil), next...),
			actions: append([]int(nil), actions...), rewards: append([]float64(nil), rewards...),
		})
	}
	var pol control.Policy
	switch n := net.(type) {
	case *mpnnNet:
		ex := NewExplorer(NewGraphCC(n.m, f, c.Features), seed^0x65787074)
		ex.Epsilon, ex.Shape, ex.WeightQ, ex.OnStep = eps, c.Shape, c.WeightQ, record
		if c.Teacher != nil {
			if err := setTeacher(c, ex, f, seed); err != nil {
				return episodeOut{err: err}
			}
		}
		pol = ex
	case *accNet:
		acc, err := NewACCFrom(n.nets, n.ports, f, c.Features)
		if err != nil {
			return episodeOut{err: fmt.Errorf("seed %d: %w", seed, err)}
		}
		acc.Seed(seed ^ 0x65787074)
		acc.Epsilon, acc.Shape, acc.WeightQ, acc.OnStep = eps, c.Shape, c.WeightQ, record
		pol = acc
	}
	r, err := replay.RunContext(ctx, replay.Config{
		Fabric: f, Flows: flows, Params: c.Params, Seed: seed, Policy: pol,
		Interval: c.Interval, Until: trace.FirstStart(flows) + c.EpisodeTime, OnFinish: er.onFinish(), LinkEvents: events,
	})
	if err != nil {
		return episodeOut{err: err}
	}
	for _, rec := range r.FCT {
		out.slowdownSum += rec.Slowdown()
	}
	out.finished = len(r.FCT)
	return out
}

// setTeacher gives ex the teacher of the episode of seed on f
// (ImitateObjective).
func setTeacher(c *TrainConfig, ex *Explorer, f *topo.Fabric, seed uint64) error {
	p, initial, err := c.Teacher(f, seed)
	if err == nil {
		err = ex.SetTeacher(p, initial, c.HardwareHosts())
	}
	if err != nil {
		return fmt.Errorf("seed %d: teacher: %w", seed, err)
	}
	return nil
}

// HardwareHosts returns the DCQCN constants c's simulated hardware gives
// the hosts (c.Params, the zero value read as replay.DefaultParams): a
// teacher's host labels when it gives none, and the first profile of a
// tuned host table (graphcc train --host-actions tuned:…).
func (c *TrainConfig) HardwareHosts() control.HostParams {
	p := c.Params
	if p == (replay.Params{}) {
		p = replay.DefaultParams()
	}
	return control.HostParamsAt(p.DCQCN, control.RefRate)
}

// hostAgents returns the host agents of f (TrainConfig.Hosts): its host
// NIC ports, the ports without topo.Graph.Agent, in increasing PortID, as
// a host head's workspace reads them out.
func hostAgents(f *topo.Fabric) []topo.PortID {
	var out []topo.PortID
	for p, ok := range f.Graph().Agent {
		if !ok {
			out = append(out, topo.PortID(p))
		}
	}
	return out
}

// episodeReward sets the rewards of the objectives that score the flows
// finishing in each interval, from the excess slowdowns (slowdown - 1) of
// the flows finished since the last transition: in all (FlowObjective),
// per port they crossed (PathObjective), per sender's NIC port (the host
// agents' reward, TrainConfig.Hosts).
type episodeReward struct {
	objective     Objective
	agents, hosts []topo.PortID // hosts only with TrainConfig.Hosts
	excess        float64
	portExcess    []float64 // PathObjective's, by port
	sentExcess    []float64 // the host agents', by the sender's NIC port
}

func newEpisodeReward(c *TrainConfig, f *topo.Fabric) *episodeReward {
	e := &episodeReward{objective: c.Objective, agents: f.Agents()}
	if c.Objective == PathObjective {
		e.portExcess = make([]float64, len(f.Ports))
	}
	if c.Hosts {
		e.hosts = hostAgents(f)
		e.sentExcess = make([]float64, len(f.Ports))
	}
	return e
}

// onFinish returns the simulator's hook that records a finished flow, nil
// if no reward needs it.
func (e *episodeReward) onFinish() func(trace.FCT, []topo.PortID) {
	if e.objective != FlowObjective && e.portExcess == nil && e.sentExcess == nil {
		return nil
	}
	return func(r trace.FCT, path []topo.PortID) {
		x := r.Slowdown() - 1
		e.excess += x
		if e.portExcess != nil {
			for _, p := range path {
				e.portExcess[p] += x
			}
		}
		if e.sentExcess != nil && len(path) > 0 {
			e.sentExcess[path[0]] += x // path[0] is the sender's NIC port
		}
	}
}

// set overwrites the rewards (the switch agents', then the host agents')
// of the objectives that score flows, and starts the next interval.
func (e *episodeReward) set(rewards []float64) {
	switch e.objective {
	case FlowObjective:
		for i := range e.agents {
			rewards[i] = -e.excess / FlowRewardScale
		}
	case PathObjective:
		for i, p := range e.agents {
			rewards[i] = -e.portExcess[p] / PathRewardScale
		}
		clear(e.portExcess)
	}
	e.excess = 0
	for j, p := range e.hosts {
		rewards[len(e.agents)+j] = -e.sentExcess[p] / PathRewardScale
	}
	clear(e.sentExcess)
}

// learner computes minibatch updates; it owns one scratch set per worker.
type learner struct {
	online, target qnet
	c              *TrainConfig
	workers        []*learnWorker
	grad           []float64
	agents, hosts  int // switch agents, then host agents (TrainConfig.Hosts), per transition
}

// qRow returns where agent v's Q values start in a transition's Q values
// and how many there are: the switch agents' rows of NumActions, then the
// host agents' of the host table's size (the model's QLen layout).
func (l *learner) qRow(v int) (int, int) {
	if v < l.agents {
		return v * NumActions, NumActions
	}
	ha := l.c.HostTable.Len()
	return l.agents*NumActions + (v-l.agents)*ha, ha
}

type learnWorker struct {
	on, onNext, tgt qscratch
	x, xn           []float64
	q, qn, qt, dq   []float64
	actions         []int
	rewards         []float64
	grad            []float64
	loss            float64
}

func newLearner(online, target qnet, c TrainConfig, stateLen, agents, hosts int) *learner {
	l := &learner{online: online, target: target, c: &c, grad: make([]float64, len(online.params())), agents: agents, hosts: hosts}
	for range c.Workers {
		qa := agents*NumActions + hosts*c.HostTable.Len()
		agents := agents + hosts
		l.workers = append(l.workers, &learnWorker{
			on: online.newScratch(), onNext: online.newScratch(), tgt: target.newScratch(),
			x: make([]float64, stateLen), xn: make([]float64, stateLen),
			q: make([]float64, qa), qn: make([]float64, qa), qt: make([]float64, qa), dq: make([]float64, qa),
			actions: make([]int, agents), rewards: make([]float64, agents),
			grad: make([]float64, len(online.params())),
		})
	}
	return l
}

// update does one minibatch step and returns its mean Huber loss, the mean
// over the agents that acted (an agent whose port had failed in that
// episode neither counts nor has a gradient). With host agents each head
// has its own double-DQN targets (the host agents' from the host head)
// and the loss is summed over both, every acting agent weighing the same.
func (l *learner) update(buf *ReplayBuffer, r *rand.Rand, adam *Adam) float64 {
	idx := buf.Sample(r, l.c.Batch, nil)
	agents := buf.Agents()
	acting := 0
	for _, i := range idx {
		acting += buf.Acting(i)
	}
	if acting == 0 {
		return 0
	}
	scale := 1 / float64(acting)
	var wg sync.WaitGroup
	for w, lw := range l.workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			clear(lw.grad)
			lw.loss = 0
			for k := w; k < len(idx); k += len(l.workers) {
				i := idx[k]
				buf.Features(i, lw.x)
				buf.Actions(i, lw.actions)
				fab := buf.Fabric(i)
				if l.c.Objective == ImitateObjective {
					lw.on.forward(fab, lw.x, lw.q)
					lw.loss += l.imitate(lw, agents, scale)
				} else {
					buf.Rewards(i, lw.rewards)
					buf.NextFeatures(i, lw.xn)
					lw.onNext.forward(fab, lw.xn, lw.qn)
					lw.tgt.forward(fab, lw.xn, lw.qt)
					lw.on.forward(fab, lw.x, lw.q)
					lw.loss += l.tdError(lw, agents, scale)
				}
				lw.on.backward(fab, lw.dq, lw.grad)
			}
		}()
	}
	wg.Wait()
	clear(l.grad)
	var loss float64
	for _, lw := range l.workers {
		for j, g := range lw.grad {
			l.grad[j] += g
		}
		loss += lw.loss
	}
	ClipNorm(l.grad, l.c.MaxGradNorm)
	adam.Step(l.online.params(), l.grad)
	return loss * scale
}

// tdError sets lw.dq to the gradient of the Huber loss of the double-DQN
// targets of lw's transition (lw.q, lw.qn, lw.qt forwarded) over its
// acting agents, scaled, and returns the loss.
func (l *learner) tdError(lw *learnWorker, agents int, scale float64) float64 {
	clear(lw.dq)
	var loss float64
	for v := range agents {
		if lw.actions[v] == NoAction {
			continue // the agent's port had failed
		}
		row, n := l.qRow(v)
		best := argmax(lw.qn[row : row+n])
		y := lw.rewards[v] + l.c.Gamma*lw.qt[row+best]
		e := lw.q[row+lw.actions[v]] - y
		loss += Huber(e)
		lw.dq[row+lw.actions[v]] = HuberDeriv(e) * scale
	}
	return loss
}

// imitate sets lw.dq to the gradient of the softmax cross-entropy of every
// acting agent's outputs (lw.q forwarded) against its label, the action
// stored (ImitateObjective), scaled, and returns the loss.
func (l *learner) imitate(lw *learnWorker, agents int, scale float64) float64 {
	clear(lw.dq)
	var loss float64
	for v := range agents {
		if lw.actions[v] == NoAction {
			continue
		}
		row, n := l.qRow(v)
		q, dq := lw.q[row:row+n], lw.dq[row:row+n]
		m := q[argmax(q)]
		var z float64
		for a, qa := range q {
			dq[a] = math.Exp(qa - m)
			z += dq[a]
		}
		for a := range dq {
			dq[a] *= scale / z
		}
		dq[lw.actions[v]] -= scale
		loss += m + math.Log(z) - q[lw.actions[v]]
	}
	return loss
}

func argmax(q []float64) int {
	best := 0
	for a := 1; a < len(q); a++ {
		if q[a] > q[best] {
			best = a
		}
	}
	return best
}
