package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"graphcc/experiment"
	"graphcc/gnn"
	"graphcc/internal/fileio"
	"graphcc/internal/progress"
	"graphcc/learn"
	"graphcc/policy"
	"graphcc/scenario"
	"graphcc/topo"
)

// trainOpts are the flags of graphcc train.
type trainOpts struct {
	scenario     string
	scenarioFile scenarioFileFlag
	kind         string
	features     string
	actions      string
	hostActions  string
	out          string
	curve        string
	reward       string
	rewardQ      float64
	objective    string
	teacher      string
	seed         uint64
	hw           hwFlags
	c            learn.Config
	checkpoint   string
	ckEvery      int
	resume       string
	valSeeds     []uint64
	valEvery     int
}

func newTrainCmd(logger loggerFunc, lookup lookupFunc) *cobra.Command {
	o := trainOpts{scenarioFile: scenarioFileFlag{lookup: lookup}, scenario: scenario.Default().Name, kind: "graphcc", features: gnn.FeaturesPaper.String(), actions: gnn.ActionsPaper.String(), hostActions: "grid", c: learn.DefaultConfig(), reward: "convex", seed: 1, hw: defaultHW(), ckEvery: 25, valEvery: 10, objective: "port"}
	cmd := &cobra.Command{
		Use: "train --model-out MODEL [flags]",
		Example: `  graphcc train --model-out my.model --curve curve.csv   # 200 episodes on fb60-incast
  graphcc train --scenario curriculum --episodes 600 --validate-seeds 2001-2002 --model-out all.model  # one model for the suite
  graphcc train --model-out my.model --checkpoint ck --resume ck   # continue an interrupted run`,
		Short: "Train a GraphCC (or ACC) ECN policy by multi-agent deep Q-learning in the simulator",
		Long: `train runs multi-agent double deep Q-learning in the simulator on --scenario
(or a curriculum of several) and writes the model to --model-out and the
training curve to --curve. The same flags and seed train the same model.
docs/cli.md describes checkpoints, validation, imitation and the least
--episodes a run needs.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return o.run(cmd.Context(), cmd, logger(cmd))
		},
	}
	o.addFlags(cmd.Flags())
	return cmd
}

// hostTable checks --hosts against --kind and returns the host action
// table of --host-actions, which needs --hosts unless it is the grid.
func (o *trainOpts) hostTable(c learn.Config, src trainSource) (gnn.HostTable, error) {
	if c.Kind == "acc" && c.Hosts {
		return gnn.HostTable{}, errors.New("--hosts: only --kind graphcc has a host head")
	}
	var names []string
	for _, sc := range src.scenarios {
		names = append(names, sc.Name)
	}
	// The tuned tables start from the hardware's constants (c.Params).
	t, err := policy.ParseHostActions(o.hostActions, names, c.HardwareHosts())
	if err != nil {
		return t, fmt.Errorf("--host-actions: %w", err)
	}
	if !c.Hosts && !t.IsGrid() {
		return t, fmt.Errorf("--host-actions %s: the host action table is the host head's: give --hosts too", o.hostActions)
	}
	return t, nil
}

// addFlags defines train's flags on fs, into o.
func (o *trainOpts) addFlags(fs *pflag.FlagSet) {
	fs.SortFlags = false
	fs.StringVar(&o.out, "model-out", "", "write the trained model here (required)")
	addRenamed(fs, &o.out, "out", "model-out")
	fs.StringVar(&o.curve, "curve", "", "write the training curve here as CSV, and as PNG beside it (FILE.png)")
	fs.StringVar(&o.scenario, "scenario", o.scenario, "training scenario (see graphcc eval --list-scenarios); several comma-separated on one fabric or a range of a family's training draws (family:1-200), or curriculum (the suite's on the training fabric, the held-out ones excepted), for a curriculum: each episode one of them at random; with --scenario-file, the file's only scenario by default")
	o.scenarioFile.add(fs, false)
	fs.StringVar(&o.kind, "kind", o.kind, "graphcc (the shared message-passing network) or acc (an independent network per port)")
	fs.StringVar(&o.features, "features", o.features, "GraphCC's per-port inputs, recorded in the model file: paper (utilization, queue and marking rate at t, t-1, t-2: the paper's) or flowmix (those, then the start fraction, queued fraction and p90 enqueue depth at t, t-1, t-2: the shipped model's; docs/learning.md)")
	fs.BoolVar(&o.c.Hosts, "hosts", false, "hosts as agents: the model gets a host head that sets every host NIC's DCQCN constants each interval (from --host-actions: 16 settings by default; recorded in the model file), trained with the switches; a host's reward is minus the excess slowdown of the flows it sent (docs/learning.md, \"Hosts as agents\"); --kind graphcc only, not on scenarios that fail links")
	fs.StringVar(&o.actions, "actions", o.actions, "the settings GraphCC's agents choose among, recorded in the model file: paper (kmin 2-32 KB, kmax 16-256 KB: the paper's), extended (kmin 0-64 KB, kmax 4-512 KB, the same 120 in number; docs/learning.md) or rpc (extended with a 1 KB kmax and kmin 128 KB in place of 64 KB, the shipped model's)")
	fs.StringVar(&o.hostActions, "host-actions", o.hostActions, "with --hosts, the DCQCN constants the host head chooses among, recorded in the model file: grid (16: timer 300,55 µs × alpha 1,55 µs × AI 5,20 Mbps × (decrease, HAI) (4 µs, 50 Mbps),(2 µs, 25 Mbps)) or tuned:DIR (tuned:FILE: one result): the hardware's constants (the --dcqcn-* flags', HPCC's preset 300,1,4,5,50 by default), then every distinct +dcqcn: constant (or sched: step's) among the best_policy of the tune results DIR/NAME.json of the scenarios trained on (what a tuned:DIR teacher gives them), in name order (docs/learning.md, \"Hosts as agents\")")
	fs.IntVar(&o.c.Episodes, "episodes", o.c.Episodes, fmt.Sprintf("episodes to simulate: at least %d with the default --warmup (learning starts after --warmup transitions, at most %d per episode)",
		learn.DefaultConfig().MinEpisodes(), learn.DefaultConfig().EpisodeTransitions()))
	fs.Uint64Var(&o.seed, "seed", o.seed, "seed of the weights, the episode traces, exploration and minibatches")
	fs.IntVar(&o.c.Workers, "workers", 0, "episodes simulated in parallel and goroutines per minibatch (0 = GOMAXPROCS); part of what makes a run reproducible")
	fs.StringVar(&o.reward, "reward", o.reward, "shape of the reward's queue term: linear (1-x), convex ((1-x)^2) or concave (1-x^2)")
	fs.Float64Var(&o.rewardQ, "reward-queue-kb", 0, "queue Q of the reward's x = min(q/Q, 1), KB at 25 Gbps (scaled by port rate); 0 = 25 KB (gnn.DefaultRewardQueueKB)")
	fs.StringVar(&o.objective, "objective", o.objective, "what the agents are rewarded for: port (the per-port reward of docs/learning.md, shaped by --reward and --reward-queue-kb); experiments: flows (a team reward of minus the excess slowdown of the flows finishing in each interval, /100), paths (each port minus the excess slowdown of the flows finishing in each interval that crossed it, /10), or imitate (no reward: the agents learn to copy --teacher)")
	fs.StringVar(&o.teacher, "teacher", "", "with --objective imitate, the policy the agents learn to copy (a spec as eval --policies takes, e.g. tuned:models/tuned: on each scenario its tuned setting); every interval each switch agent's label is the action of the table nearest to the teacher's setting for its port, and with --hosts each host agent's the host action nearest to the teacher's DCQCN constants for its NIC (a +dcqcn: spec's, e.g. a joint tune's tuned:FILE; a teacher that sets them every interval, e.g. hostreact: or a sched: whose steps set them, those it sets; else the hardware's, the --dcqcn-* flags') (docs/learning.md, \"Imitating the tuned settings\")")
	fs.Float64Var(&o.c.Gamma, "gamma", o.c.Gamma, "discount per control interval")
	fs.Float64Var(&o.c.LR, "lr", o.c.LR, "Adam learning rate")
	fs.IntVar(&o.c.Batch, "batch", o.c.Batch, "transitions per minibatch")
	fs.IntVar(&o.c.Buffer, "buffer", o.c.Buffer, "replay buffer capacity, transitions")
	fs.IntVar(&o.c.Updates, "updates", o.c.Updates, "minibatch updates per episode")
	fs.IntVar(&o.c.Warmup, "warmup", o.c.Warmup, "transitions collected before learning starts")
	fs.IntVar(&o.c.TargetEvery, "target-every", o.c.TargetEvery, "updates between target network refreshes")
	fs.Float64Var(&o.c.EpsEnd, "eps-end", o.c.EpsEnd, "final exploration rate (it decays linearly from --eps-start)")
	fs.Float64Var(&o.c.EpsStart, "eps-start", o.c.EpsStart, "initial exploration rate")
	fs.Float64Var(&o.c.EpsDecay, "eps-decay", o.c.EpsDecay, "fraction of the episodes over which epsilon decays")
	fs.StringVar(&o.checkpoint, "checkpoint", "", "save the run's whole state here (atomically) every --checkpoint-every episodes and when interrupted, to --resume it")
	fs.IntVar(&o.ckEvery, "checkpoint-every", o.ckEvery, "episodes between checkpoints (rounded up to whole rounds of --workers episodes)")
	fs.StringVar(&o.resume, "resume", "", "continue the run of this checkpoint (the same flags otherwise); may be --checkpoint's own file")
	fs.Var(newSeedsFlag(&o.valSeeds), "validate-seeds", "seeds of validation runs, as numbers and ranges (2001-2010): --model-out gets the weights whose greedy policy had the lowest mean FCT slowdown on them (not 1001 to 1010, eval's)")
	fs.IntVar(&o.valEvery, "validate-every", o.valEvery, "episodes between validations (rounded up to whole rounds), with --validate-seeds")
	o.hw.add(fs, omitECN)
}

// curvePNG is where the training curve's PNG goes: beside the CSV at path,
// its extension replaced by .png.
func curvePNG(path string) string {
	return strings.TrimSuffix(path, filepath.Ext(path)) + ".png"
}

// refuseZeroSettings refuses a zero given explicitly to one of train's
// flags whose zero learn.Config reads as "the default", which would
// silently train with the default instead, and --eps-start 0 with --eps-end
// 0, which the trainer also replaces by its defaults.
func refuseZeroSettings(fs *pflag.FlagSet) error {
	for _, name := range []string{"episodes", "gamma", "lr", "batch", "buffer", "updates", "warmup", "target-every", "eps-decay"} {
		f := fs.Lookup(name)
		if f == nil || !f.Changed {
			continue
		}
		if v, err := strconv.ParseFloat(f.Value.String(), 64); err == nil && v == 0 {
			return fmt.Errorf("--%s 0: must be positive (the trainer would take its default, %s, in its place)", name, f.DefValue)
		}
	}
	start, end := fs.Lookup("eps-start"), fs.Lookup("eps-end")
	if start.Value.String() == "0" && end.Value.String() == "0" {
		return fmt.Errorf("--eps-start 0 with --eps-end 0: the trainer would take its defaults, %s and %s, in their place: give one of them a positive rate", start.DefValue, end.DefValue)
	}
	return nil
}

// trainSource is what train trains on: one scenario, or a curriculum of
// several on one fabric (cur set).
type trainSource struct {
	name      string // the scenario's, "curriculum", or the names joined by "+"
	summary   string // the scenario's description, or the curriculum's names
	scenarios []scenario.Scenario
	cur       *scenario.Curriculum
}

// runInfo is what the run of the flags on src with c records
// (learn.RunInfo).
func (o *trainOpts) runInfo(c learn.Config, src trainSource) learn.RunInfo {
	info := learn.RunInfo{Command: "graphcc " + strings.Join(os.Args[1:], " "), Scenario: src.name, ScenarioSummary: src.summary,
		ScenarioFile: o.scenarioFile.path, ResumedFrom: o.resume}
	if src.cur != nil {
		info.Curriculum = src.cur.Names()
	}
	if !c.HostTable.IsGrid() {
		info.HostActions = o.hostActions
	}
	return info
}

func (o *trainOpts) run(ctx context.Context, cmd *cobra.Command, log *slog.Logger) error {
	if err := o.checkFlags(cmd.Flags()); err != nil {
		return err
	}
	c, src, err := o.config(cmd.Flags())
	if err != nil {
		return err
	}
	if err := o.setTeacher(ctx, &c, src, log); err != nil {
		return err
	}
	saved := -1 // episodes of the last checkpoint saved
	if o.checkpoint != "" {
		c.CheckpointEvery = o.ckEvery
		c.Checkpoint = func(ck *learn.Checkpoint) error {
			if err := ck.Save(o.checkpoint); err != nil {
				return err
			}
			saved = ck.Episodes
			log.Info("checkpoint", "episodes", ck.Episodes, "file", o.checkpoint)
			return nil
		}
	}
	bar := progress.NewMeter(cmd.ErrOrStderr(), "train", "episodes", c.Episodes)
	c.Progress = func(st learn.EpisodeStats) {
		bar.Step(st.Episode, fmt.Sprintf("epsilon %.2f, mean reward %.4f, loss %.4f", st.Epsilon, st.MeanReward, st.Loss))
		log.Info("round", "episode", st.Episode, "epsilon", st.Epsilon, "reward", st.MeanReward, "loss", st.Loss, "updates", st.Updates)
	}
	start := time.Now()
	res, err := learn.Train(ctx, c)
	bar.Done()
	if nu := (*learn.NoUpdatesError)(nil); errors.As(err, &nu) {
		return noUpdatesError(nu)
	}
	if err != nil {
		if saved >= 0 && ctx.Err() != nil {
			return fmt.Errorf("%w; the state after %d episodes is in %s: continue with the same flags and --resume %s", err, saved, o.checkpoint, o.checkpoint)
		}
		if c.Resume != nil && errors.Is(err, learn.ErrCheckpoint) {
			return fmt.Errorf("--resume %s: %w", o.resume, err)
		}
		return err
	}
	return o.save(cmd.OutOrStdout(), c, src, res, time.Since(start))
}

// setTeacher sets c's teacher from --teacher, which goes with --objective
// imitate and only with it: the policy of the spec on each episode's
// scenario (the curriculum's pick for its seed), checked on every
// scenario first.
func (o *trainOpts) setTeacher(ctx context.Context, c *learn.Config, src trainSource, log *slog.Logger) error {
	switch imitate := c.Objective == learn.ImitateObjective; {
	case imitate && o.teacher == "":
		return errors.New("--objective imitate: needs --teacher, the policy to copy")
	case !imitate && o.teacher != "":
		return fmt.Errorf("--teacher: only with --objective imitate (not %s)", c.Objective)
	case !imitate:
		return nil
	}
	var pick func(uint64) scenario.Scenario
	if src.cur != nil {
		pick = src.cur.Pick
	}
	t, err := policy.NewTeacher(ctx, "--teacher", o.teacher, policy.Env{Log: log, Params: c.Params, Interval: c.Interval, WarnHardware: policy.HardwareAll}, src.scenarios, pick)
	c.TeacherName, c.Teacher = t.Name, t.New
	return err
}

// checkFlags refuses, before anything runs, train's flags that are wrong
// on their own: outputs that could not be written, and zero or negative
// settings.
func (o *trainOpts) checkFlags(fs *pflag.FlagSet) error {
	if o.out == "" {
		return fmt.Errorf("--model-out: required")
	}
	png := ""
	if o.curve != "" {
		if png = curvePNG(o.curve); png == o.curve {
			return fmt.Errorf("--curve %s: the curve's PNG goes beside the CSV as FILE.png: give the CSV another name", o.curve)
		}
	}
	if err := fileio.CheckOutputs(nil, "--model-out", o.out, "--curve", o.curve, "--curve", png, "--checkpoint", o.checkpoint); err != nil {
		return err
	}
	// The checkpoint may be the file resumed from; the model and curve not.
	if err := fileio.CheckDistinct([]string{"--model-out", o.out, "--curve", o.curve, "--curve", png}, []string{"--resume", o.resume}); err != nil {
		return err
	}
	if o.ckEvery < 1 {
		return fmt.Errorf("--checkpoint-every %d: must be at least 1", o.ckEvery)
	}
	if err := refuseZeroSettings(fs); err != nil {
		return err
	}
	if o.c.Workers < 0 {
		return fmt.Errorf("--workers %d: must not be negative (0 = GOMAXPROCS)", o.c.Workers)
	}
	return nil
}

// config builds the training of the flags on its scenario or curriculum.
func (o *trainOpts) config(fs *pflag.FlagSet) (learn.Config, trainSource, error) {
	c := o.c
	src, err := o.source(fs)
	if err != nil {
		return c, src, err
	}
	for _, sc := range src.scenarios {
		if err := sc.CheckTraining(); err != nil {
			return c, src, fmt.Errorf("--scenario %s: %w", o.scenario, err)
		}
	}
	if c.Shape, err = learn.ParseRewardShape(o.reward); err != nil {
		return c, src, fmt.Errorf("--reward: %w", err)
	}
	c.Kind, c.Seed = o.kind, o.seed
	if c.FeatureSet, err = gnn.ParseFeatureSet(o.features); err != nil {
		return c, src, fmt.Errorf("--features: %w", err)
	}
	if c.Kind == "acc" && c.FeatureSet != gnn.FeaturesPaper {
		return c, src, fmt.Errorf("--features %s: only --kind graphcc takes a feature set (acc has its own state)", o.features)
	}
	if c.ActionSet, err = gnn.ParseActionSet(o.actions); err != nil {
		return c, src, fmt.Errorf("--actions: %w", err)
	}
	if c.Kind == "acc" && c.ActionSet != gnn.ActionsPaper {
		return c, src, fmt.Errorf("--actions %s: only --kind graphcc takes another action set (acc's networks are the paper's)", o.actions)
	}
	if src.cur != nil {
		// The curriculum's fabric: every episode's, or a variant of it
		// without the links its scenario fails.
		c.Fabric, c.Episode, c.Events = src.cur.Fabric(), src.cur.Build, src.cur.LinkEvents
	} else {
		// The scenario's fabric before its random failures, if any: ACC
		// has an agent per switch port of it, idle in an episode whose
		// failures took its link; GraphCC's transitions are stored on its
		// layout and learnt on their own episode's fabric.
		sc := src.scenarios[0]
		if c.Fabric, err = sc.FixedFabric(); err != nil {
			return c, src, err
		}
		c.Episode = sc.Build
		c.Events = func(_ uint64, f *topo.Fabric) ([]topo.LinkEvent, error) { return sc.LinkEvents(f) }
	}
	if c.Objective, err = learn.ParseObjective(o.objective); err != nil {
		return c, src, fmt.Errorf("--objective: %w", err)
	}
	if !(o.rewardQ >= 0) || math.IsInf(o.rewardQ, 0) {
		return c, src, fmt.Errorf("--reward-queue-kb %g: must be a finite number, not negative", o.rewardQ)
	}
	c.Features.RewardQueue = o.rewardQ * 1000
	if c.Params, err = o.hw.params(); err != nil {
		return c, src, err
	}
	if c.HostTable, err = o.hostTable(c, src); err != nil {
		return c, src, err
	}
	if err := o.hw.checkScenarios(src.scenarios); err != nil {
		return c, src, err
	}
	if err := o.validation(&c, src); err != nil {
		return c, src, err
	}
	info := o.runInfo(c, src)
	c.CheckpointMeta = info.CheckpointMeta()
	if o.resume != "" {
		ck, err := learn.LoadCheckpoint(o.resume)
		if err != nil {
			return c, src, fmt.Errorf("--resume: %w", err)
		}
		if err := info.CheckResume(ck.Meta); err != nil {
			return c, src, fmt.Errorf("--resume %s: %w", o.resume, err)
		}
		c.Resume = ck
	}
	return c, src, nil
}

// source resolves --scenario (and --scenario-file): one scenario, the
// built-in curriculum, or a comma-separated list of scenarios on one
// fabric, trained on as a curriculum.
func (o *trainOpts) source(fs *pflag.FlagSet) (trainSource, error) {
	set, err := o.scenarioFile.load()
	if err != nil {
		return trainSource{}, err
	}
	var cur *scenario.Curriculum
	switch {
	case o.scenarioFile.path != "" && !fs.Changed("scenario"):
		sc, err := pick(set, "") // the file's only scenario
		if err != nil {
			return trainSource{}, err
		}
		return trainSource{name: sc.Name, summary: sc.Describe(), scenarios: []scenario.Scenario{sc}}, nil
	case strings.TrimSpace(o.scenario) == scenario.CurriculumName:
		cur = scenario.DefaultCurriculum()
	case strings.ContainsAny(o.scenario, ",:"): // a list, or a range of a family's draws
		scs, err := set.Resolve(o.scenario)
		if err != nil {
			return trainSource{}, fmt.Errorf("--scenario %s: %w", o.scenario, err)
		}
		if cur, err = scenario.NewCurriculum(scs); err != nil {
			return trainSource{}, fmt.Errorf("--scenario %s: %w", o.scenario, err)
		}
	default:
		sc, err := pick(set, strings.TrimSpace(o.scenario))
		if err != nil {
			return trainSource{}, err
		}
		return trainSource{name: sc.Name, summary: sc.Describe(), scenarios: []scenario.Scenario{sc}}, nil
	}
	src := trainSource{name: strings.Join(cur.Names(), "+"), summary: "curriculum of " + strings.Join(cur.Names(), ", "), scenarios: cur.Scenarios, cur: cur}
	if name := strings.TrimSpace(o.scenario); name == scenario.CurriculumName || strings.Contains(name, ":") {
		src.name = name // not every draw's name
	}
	return src, nil
}

// validation sets c's validation runs of --validate-seeds, which may not
// be evaluation seeds (experiment.CheckTrainingSeeds): on the scenario,
// or on each scenario of a curriculum (a validation set each, scored by
// the geometric mean of their mean slowdowns).
func (o *trainOpts) validation(c *learn.Config, src trainSource) error {
	if o.valEvery < 1 {
		return fmt.Errorf("--validate-every %d: must be at least 1", o.valEvery)
	}
	if err := experiment.CheckTrainingSeeds(o.valSeeds); err != nil {
		return fmt.Errorf("--validate-seeds: %w", err)
	}
	if len(o.valSeeds) == 0 {
		return nil
	}
	c.ValidateEvery = o.valEvery
	if src.cur == nil {
		c.ValidateSeeds = o.valSeeds
		return nil
	}
	for _, sc := range src.scenarios {
		c.ValidateSets = append(c.ValidateSets, learn.ValidateSet{Name: sc.Name, Episode: sc.Build, Seeds: o.valSeeds,
			Events: func(_ uint64, f *topo.Fabric) ([]topo.LinkEvent, error) { return sc.LinkEvents(f) }})
	}
	return nil
}

// save writes the model of training c on src (res, in wall time) with its
// metadata, and the curve, and says what it wrote on out.
func (o *trainOpts) save(out io.Writer, c learn.Config, src trainSource, res *learn.Result, wall time.Duration) error {
	if err := res.ModelFile(c, o.runInfo(c, src).ModelMeta(c.Resume)).Save(o.out); err != nil {
		return fmt.Errorf("--model-out: %w", err)
	}
	wrote := o.out
	if o.curve != "" {
		if err := fileio.WriteAtomic(o.curve, func(w io.Writer) error { return learn.WriteCurve(w, res.Stats) }); err != nil {
			return fmt.Errorf("--curve: %w", err)
		}
		if err := experiment.WriteCurvePNG(curvePNG(o.curve), res.Stats); err != nil {
			return fmt.Errorf("--curve: %w", err)
		}
		wrote += ", " + o.curve + ", " + curvePNG(o.curve)
	}
	return res.WriteSummary(out, c, src.name, o.hostActions, wrote, wall)
}

// noUpdatesError words a run without a learning update (gnn's e) in
// train's flags.
func noUpdatesError(e *learn.NoUpdatesError) error {
	first, lower := fmt.Sprintf("--warmup %d", e.Warmup), "--warmup"
	if e.Batch > e.Warmup {
		first, lower = fmt.Sprintf("--batch %d", e.Batch), "--batch"
	}
	switch {
	case e.Buffer < e.Need():
		return fmt.Errorf("--buffer %d gives 0 learning updates: the first comes after %s transitions, more than the replay buffer holds; raise --buffer to at least %d, or lower %s",
			e.Buffer, first, e.Need(), lower)
	case e.MinEpisodes == 0:
		return fmt.Errorf("--episodes %d gave 0 learning updates: the first comes after %s transitions, and the episodes gave none", e.Episodes, first)
	case e.Ran:
		return fmt.Errorf("--episodes %d gave 0 learning updates: the first comes after %s transitions, and they gave %d (the scenario's flows finished before the episodes' end); raise --episodes to at least %d (at that rate), or lower %s",
			e.Episodes, first, e.Transitions, e.MinEpisodes, lower)
	}
	return fmt.Errorf("--episodes %d gives 0 learning updates: the first comes after %s transitions, and an episode gives at most %d; raise --episodes to at least %d, or lower %s",
		e.Episodes, first, e.PerEpisode, e.MinEpisodes, lower)
}
