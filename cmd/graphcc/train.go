package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"graphcc/internal/progress"
	"graphcc/learn"
	"graphcc/learn/setup"
	"graphcc/policy"
)

// trainOpts are the flags of graphcc train: the run's settings (opt),
// its outputs and its hardware.
type trainOpts struct {
	opt          setup.Options
	scenarioFile scenarioFileFlag
	files        setup.Outputs // --model-out, --curve, --checkpoint, --checkpoint-every
	hw           hwFlags
}

func newTrainCmd(logger loggerFunc, lookup lookupFunc) *cobra.Command {
	o := trainOpts{opt: setup.DefaultOptions(), scenarioFile: scenarioFileFlag{lookup: lookup}, hw: defaultHW(), files: setup.Outputs{CheckpointEvery: 25}}
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

// addFlags defines train's flags on fs, into o.
func (o *trainOpts) addFlags(fs *pflag.FlagSet) {
	fs.SortFlags = false
	fs.StringVar(&o.files.Model, "model-out", "", "write the trained model here (required)")
	addRenamed(fs, &o.files.Model, "out", "model-out")
	fs.StringVar(&o.files.Curve, "curve", "", "write the training curve here as CSV, and as PNG beside it (FILE.png)")
	fs.StringVar(&o.opt.Scenario, "scenario", o.opt.Scenario, "training scenario (see graphcc eval --list-scenarios); several comma-separated on one fabric or a range of a family's training draws (family:1-200), or curriculum (the suite's on the training fabric, the held-out ones excepted), for a curriculum: each episode one of them at random; with --scenario-file, the file's only scenario by default")
	o.scenarioFile.add(fs, false)
	fs.StringVar(&o.opt.Config.Kind, "kind", o.opt.Config.Kind, "graphcc (the shared message-passing network) or acc (an independent network per port)")
	fs.StringVar(&o.opt.Features, "features", o.opt.Features, "GraphCC's per-port inputs, recorded in the model file: paper (utilization, queue and marking rate at t, t-1, t-2: the paper's) or flowmix (those, then the start fraction, queued fraction and p90 enqueue depth at t, t-1, t-2: the shipped model's; docs/learning.md)")
	fs.BoolVar(&o.opt.Config.Hosts, "hosts", false, "hosts as agents: the model gets a host head that sets every host NIC's DCQCN constants each interval (from --host-actions: 16 settings by default; recorded in the model file), trained with the switches; a host's reward is minus the excess slowdown of the flows it sent (docs/learning.md, \"Hosts as agents\"); --kind graphcc only, not on scenarios that fail links")
	fs.StringVar(&o.opt.Actions, "actions", o.opt.Actions, "the settings GraphCC's agents choose among, recorded in the model file: paper (kmin 2-32 KB, kmax 16-256 KB: the paper's), extended (kmin 0-64 KB, kmax 4-512 KB, the same 120 in number; docs/learning.md) or rpc (extended with a 1 KB kmax and kmin 128 KB in place of 64 KB, the shipped model's)")
	fs.StringVar(&o.opt.HostActions, "host-actions", o.opt.HostActions, "with --hosts, the DCQCN constants the host head chooses among, recorded in the model file: grid (16: timer 300,55 µs × alpha 1,55 µs × AI 5,20 Mbps × (decrease, HAI) (4 µs, 50 Mbps),(2 µs, 25 Mbps)) or tuned:DIR (tuned:FILE: one result): the hardware's constants (the --dcqcn-* flags', HPCC's preset 300,1,4,5,50 by default), then every distinct +dcqcn: constant (or sched: step's) among the best_policy of the tune results DIR/NAME.json of the scenarios trained on (what a tuned:DIR teacher gives them), in name order (docs/learning.md, \"Hosts as agents\")")
	fs.IntVar(&o.opt.Config.Episodes, "episodes", o.opt.Config.Episodes, fmt.Sprintf("episodes to simulate: at least %d with the default --warmup (learning starts after --warmup transitions, at most %d per episode)",
		learn.DefaultConfig().MinEpisodes(), learn.DefaultConfig().EpisodeTransitions()))
	fs.Uint64Var(&o.opt.Config.Seed, "seed", o.opt.Config.Seed, "seed of the weights, the episode traces, exploration and minibatches")
	fs.IntVar(&o.opt.Config.Workers, "workers", 0, "episodes simulated in parallel and goroutines per minibatch (0 = GOMAXPROCS); part of what makes a run reproducible")
	fs.StringVar(&o.opt.Reward, "reward", o.opt.Reward, "shape of the reward's queue term: linear (1-x), convex ((1-x)^2) or concave (1-x^2)")
	fs.Float64Var(&o.opt.RewardQueueKB, "reward-queue-kb", 0, "queue Q of the reward's x = min(q/Q, 1), KB at 25 Gbps (scaled by port rate); 0 = 25 KB (gnn.DefaultRewardQueueKB)")
	fs.StringVar(&o.opt.Objective, "objective", o.opt.Objective, "what the agents are rewarded for: port (the per-port reward of docs/learning.md, shaped by --reward and --reward-queue-kb); experiments: flows (a team reward of minus the excess slowdown of the flows finishing in each interval, /100), paths (each port minus the excess slowdown of the flows finishing in each interval that crossed it, /10), or imitate (no reward: the agents learn to copy --teacher)")
	fs.StringVar(&o.opt.Teacher, "teacher", "", "with --objective imitate, the policy the agents learn to copy (a spec as eval --policies takes, e.g. tuned:models/tuned: on each scenario its tuned setting); every interval each switch agent's label is the action of the table nearest to the teacher's setting for its port, and with --hosts each host agent's the host action nearest to the teacher's DCQCN constants for its NIC (a +dcqcn: spec's, e.g. a joint tune's tuned:FILE; a teacher that sets them every interval, e.g. hostreact: or a sched: whose steps set them, those it sets; else the hardware's, the --dcqcn-* flags') (docs/learning.md, \"Imitating the tuned settings\")")
	fs.Float64Var(&o.opt.Config.Gamma, "gamma", o.opt.Config.Gamma, "discount per control interval")
	fs.Float64Var(&o.opt.Config.LR, "lr", o.opt.Config.LR, "Adam learning rate")
	fs.IntVar(&o.opt.Config.Batch, "batch", o.opt.Config.Batch, "transitions per minibatch")
	fs.IntVar(&o.opt.Config.Buffer, "buffer", o.opt.Config.Buffer, "replay buffer capacity, transitions")
	fs.IntVar(&o.opt.Config.Updates, "updates", o.opt.Config.Updates, "minibatch updates per episode")
	fs.IntVar(&o.opt.Config.Warmup, "warmup", o.opt.Config.Warmup, "transitions collected before learning starts")
	fs.IntVar(&o.opt.Config.TargetEvery, "target-every", o.opt.Config.TargetEvery, "updates between target network refreshes")
	fs.Float64Var(&o.opt.Config.EpsEnd, "eps-end", o.opt.Config.EpsEnd, "final exploration rate (it decays linearly from --eps-start)")
	fs.Float64Var(&o.opt.Config.EpsStart, "eps-start", o.opt.Config.EpsStart, "initial exploration rate")
	fs.Float64Var(&o.opt.Config.EpsDecay, "eps-decay", o.opt.Config.EpsDecay, "fraction of the episodes over which epsilon decays")
	fs.StringVar(&o.files.Checkpoint, "checkpoint", "", "save the run's whole state here (atomically) every --checkpoint-every episodes and when interrupted, to --resume it")
	fs.IntVar(&o.files.CheckpointEvery, "checkpoint-every", o.files.CheckpointEvery, "episodes between checkpoints (rounded up to whole rounds of --workers episodes)")
	fs.StringVar(&o.opt.Resume, "resume", "", "continue the run of this checkpoint (the same flags otherwise); may be --checkpoint's own file")
	fs.Var(newSeedsFlag(&o.opt.ValidateSeeds), "validate-seeds", "seeds of validation runs, as numbers and ranges (2001-2010): --model-out gets the weights whose greedy policy had the lowest mean FCT slowdown on them (not 1001 to 1010, eval's)")
	fs.IntVar(&o.opt.ValidateEvery, "validate-every", o.opt.ValidateEvery, "episodes between validations (rounded up to whole rounds), with --validate-seeds")
	o.hw.add(fs, omitECN)
}

func (o *trainOpts) run(ctx context.Context, cmd *cobra.Command, log *slog.Logger) error {
	if err := o.files.Check(o.opt.Resume, "--"); err != nil {
		return err
	}
	r, err := o.resolve(ctx, cmd.Flags(), log)
	if err != nil {
		return err
	}
	c := r.Config
	saved := -1 // episodes of the last checkpoint saved
	if ckPath := o.files.Checkpoint; ckPath != "" {
		c.CheckpointEvery = o.files.CheckpointEvery
		c.Checkpoint = func(ck *learn.Checkpoint) error {
			if err := ck.Save(ckPath); err != nil {
				return err
			}
			saved = ck.Episodes
			log.Info("checkpoint", "episodes", ck.Episodes, "file", ckPath)
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
	if err != nil && saved >= 0 && ctx.Err() != nil && !errors.Is(err, learn.ErrNoUpdates) {
		return fmt.Errorf("%w; the state after %d episodes is in %s: continue with the same flags and --resume %s", err, saved, o.files.Checkpoint, o.files.Checkpoint)
	}
	if err != nil {
		return r.Explain(err)
	}
	return o.save(cmd.OutOrStdout(), r, res, time.Since(start))
}

// resolve checks the flags and returns the run they describe
// (setup.Options.Resolve) on the hardware of the flags.
func (o *trainOpts) resolve(ctx context.Context, fs *pflag.FlagSet, log *slog.Logger) (*setup.Run, error) {
	set, err := o.scenarioFile.load()
	if err != nil {
		return nil, err
	}
	opt := o.opt
	if o.scenarioFile.path != "" && !fs.Changed("scenario") {
		opt.Scenario = "" // the file's only scenario
	}
	if opt.Config.Params, err = o.hw.params(); err != nil {
		return nil, err
	}
	r, err := opt.Resolve(ctx, set, policy.Env{Log: log, WarnHardware: policy.HardwareAll}, "--")
	if err != nil {
		return nil, err
	}
	r.Info.Command = "graphcc " + strings.Join(os.Args[1:], " ")
	return r, o.hw.checkScenarios(r.Scenarios)
}

// save writes the model of the run r (res, in wall time) with its
// metadata, and the curve, and says what it wrote on out.
func (o *trainOpts) save(out io.Writer, r *setup.Run, res *learn.Result, wall time.Duration) error {
	c := r.Config
	if err := res.ModelFile(c, r.Info.ModelMeta(c.Resume)).Save(o.files.Model); err != nil {
		return fmt.Errorf("--model-out: %w", err)
	}
	if err := o.files.WriteCurve(res.Stats, "--"); err != nil {
		return err
	}
	wrote := o.files.Model
	if o.files.Curve != "" {
		wrote += ", " + o.files.Curve + ", " + o.files.CurvePNG()
	}
	return res.WriteSummary(out, c, r.Info.Scenario, o.opt.HostActions, wrote, wall)
}
