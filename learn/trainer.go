package learn

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"sync"

	"graphcc/gnn"
	"graphcc/topo"
)

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
func Train(ctx context.Context, c Config) (*Result, error) {
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
// Config.Checkpoint. Config.Progress records each round.
type Trainer struct {
	c Config // filled

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

	res           Result // the networks trained and the rounds' Stats so far
	done, updates int    // episodes and minibatch updates done

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
func NewTrainer(c Config) (*Trainer, error) {
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
		t.res.Model = gnn.NewModelShape(shape, initR) // NewModelSet's weights, and the host head's after them
		t.res.Model.FeatureSet = c.FeatureSet
		t.res.Model.ActionSet = c.ActionSet
		if c.Hosts {
			t.res.Model.HostTable = c.HostTable
		}
		t.online = &mpnnNet{m: t.res.Model, vars: t.vars}
	} else {
		perPort = gnn.ACCNumFeatures
		acc := gnn.NewACC(t.ref, c.Features, initR)
		an := newACCNet(acc.Nets, agents, acc.Ports())
		t.online = an
		t.res.ACC, t.res.ACCPorts = an.nets, an.ports
	}
	t.target = t.online.clone()
	t.buf = NewReplayBufferLen(c.Buffer, len(t.ref.Ports)*perPort, len(agents))
	t.adam = NewAdam(len(t.online.params()), c.LR)
	t.lrn = newLearner(t.online, t.target, *c, len(t.ref.Ports)*perPort, len(t.ref.Agents()), len(agents)-len(t.ref.Agents()))
	t.fingerprint = configFingerprint(c)
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
// round, hands its state to Config.Checkpoint and returns an error
// wrapping ctx's cause. A run whose episodes ended without a minibatch
// update (they gave fewer transitions than the warmup) returns a
// *NoUpdatesError, not the untrained weights. A Trainer runs once.
func (t *Trainer) Run(ctx context.Context) (*Result, error) {
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
// Config.Checkpoint; rootState is the episode seeds' source then.
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

// result is the run's Result: the networks and the rounds' Stats,
// and with validation seeds the best validated networks.
func (t *Trainer) result() *Result {
	res := &t.res
	if t.best != nil && t.bestEpisode >= 0 {
		res.Best, res.BestEpisode = &Result{}, t.bestEpisode
		switch b := t.best.(type) {
		case *mpnnNet:
			res.Best.Model = b.m
		case *accNet:
			res.Best.ACC, res.Best.ACCPorts = b.nets, b.ports
		}
	}
	return res
}

// crosses reports whether a round from from to to episodes done completes
// a multiple of every (never for every <= 0).
func crosses(from, to, every int) bool {
	return every > 0 && to/every > from/every
}
