package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"graphcc/experiment"
	"graphcc/experiment/report"
	"graphcc/internal/fileio"
	"graphcc/internal/progress"
	"graphcc/policy"
	"graphcc/scenario"
)

// evalOpts are the flags of graphcc eval.
type evalOpts struct {
	scenarios    string
	scenarioFile scenarioFileFlag
	specs        experiment.PolicySpecs
	set          experiment.RunSettings // --seeds, --workers, --rewards
	out          string
	jsonOut      string
	interval     intervalFlag
	hw           hwFlags
	accEps       int
	list         bool
	shard        shardFlag
}

func newEvalCmd(logger loggerFunc, lookup lookupFunc) *cobra.Command {
	o := evalOpts{
		scenarioFile: scenarioFileFlag{lookup: lookup},
		scenarios:    scenario.Default().Name,
		specs:        experiment.PolicySpecs{Policies: []string{"static,acc,graphcc"}},
		set:          experiment.RunSettings{Seeds: experiment.EvalSeeds(), Rewards: experiment.DefaultRewards()},
		out:          "eval-out",
		hw:           defaultHW(),
	}
	cmd := &cobra.Command{
		Use: "eval [flags]",
		Example: `  graphcc eval                                        # the main job: static, ACC, GraphCC on fb60-incast, seeds 1001-1010, against the tuned joint constant
  graphcc eval --list-scenarios
  graphcc eval --scenarios all --policies static,graphcc --seeds 1001-1003 --out suite
  graphcc eval --policies static,static:2,32,0.01,graphcc:my.model --reference static --json r.json
  graphcc eval --scenarios all --policies graphcc --yardsticks tuned:models/tuned,tuned:models/tuned-global.json`,
		Short: "Compare ECN policies on the paper's evaluation scenarios: report, figures, JSON",
		Long: `eval runs every policy of --policies on every scenario of --scenarios at
every seed of --seeds, on the same traces, and prints a Markdown report; it
writes the report and a figure per scenario into the directory --out, and
the report as JSON to --json. docs/cli.md describes the report, the
scenarios, the yardsticks, the rewards and sharding.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if o.list {
				return o.listScenarios(cmd.OutOrStdout())
			}
			return o.run(cmd.Context(), cmd, logger(cmd))
		},
	}
	fs := cmd.Flags()
	fs.SortFlags = false
	fs.BoolVar(&o.list, "list-scenarios", false, "list the scenarios (the built-in suite, then those of --scenario-file, then the families' ranges of draws) with what each tests, and exit")
	fs.StringVar(&o.scenarios, "scenarios", o.scenarios, "comma-separated scenario names, or all ("+strings.Join(scenario.Names(), ", ")+", then those of --scenario-file); a family's draws, family-N or family:A-B (--list-scenarios); with --scenario-file, the file's scenarios by default")
	o.scenarioFile.add(fs, false)
	fs.StringArrayVar(&o.specs.Policies, "policies", o.specs.Policies, "comma-separated ECN policies (static, static:KMIN_KB,KMAX_KB,PMAX, edge:SETTING:SETTING, react:Q_KB:SETTING:SETTING, sched:T=SETTING[/DCQCN]:T=SETTING[/DCQCN]..., tuned:FILE|DIR|joint|switch, graphcc[:MODEL], acc[:MODEL], grid for all 120 fixed settings of the action set, ideal for the fabric's fair share without queues); repeatable")
	fs.Var(newSeedsFlag(&o.set.Seeds), "seeds", "seeds of the traffic, the random failures and the simulation: comma-separated numbers and ranges, 1001-1010,2001")
	fs.StringVar(&o.specs.Reference, "reference", "", "policy the report and figures normalize to (default: graphcc if evaluated, as in the paper, else the first of --policies)")
	fs.StringVar(&o.specs.Yardsticks, "yardsticks", experiment.AutoYardsticks, "comma-separated policies to measure every policy against besides --reference, static always first (added to the runs when not among --policies): tuned:DIR, each scenario's tuned constant; tuned:FILE, one tuned constant; any spec of --policies; auto: static and the tuned constant shipped for the hardware flags, tuned:joint (or tuned:switch when only the hosts' DCQCN constants differ), none if neither was tuned on them; '' for none")
	fs.StringVar(&o.out, "out", o.out, "directory of report.md and the figures (created if missing; its parent must exist)")
	fs.StringVar(&o.jsonOut, "json", "", "also write the report as JSON here (per scenario and policy the simulator's summary)")
	fs.IntVar(&o.set.Workers, "workers", 0, "simulations run at once (0: one per CPU)")
	fs.StringVar(&o.set.Rewards, "rewards", o.set.Rewards, "comma-separated training rewards to score every run with, SHAPE[:Q_KB] (linear, convex or concave; Q as train's --reward-queue-kb): the agents' mean reward 0.7*f(min(q/Q,1)) + 0.3*u per control interval over the scenario's arrival window, as a training episode sees it; given, the report shows the scores (--json has them always); \"\" for none")
	fs.IntVar(&o.accEps, "acc-episodes", policy.DefaultACCEpisodes, "episodes ACC trains on each scenario before it is evaluated (policy acc without a model file)")
	o.hw.add(fs, omitECN)
	o.interval.add(fs, "")
	o.shard.add(fs, "the runs")
	return cmd
}

// config builds the evaluation of the flags.
func (o *evalOpts) config(ctx context.Context, fs *pflag.FlagSet, env policy.Env) (experiment.Config, error) {
	var c experiment.Config
	var err error
	if c.Params, err = o.hw.params(); err != nil {
		return c, err
	}
	if c.Interval, err = o.interval.parse(); err != nil {
		return c, err
	}
	// ACC trained on the spot trains on the simulator it is evaluated on.
	env.Params, env.Interval = c.Params, c.Interval
	if c.Scenarios, err = o.scenarioFile.resolve(fs, "scenarios", o.scenarios, true); err != nil {
		return c, err
	}
	if err := o.hw.checkScenarios(c.Scenarios); err != nil {
		return c, err
	}
	if err := o.specs.Resolve(ctx, env, &c, "--"); err != nil {
		return c, err
	}
	if err := o.set.Apply(&c, "--"); err != nil {
		return c, err
	}
	c.ShowRewards = fs.Changed("rewards")
	return c, nil
}

func (o *evalOpts) run(ctx context.Context, cmd *cobra.Command, log *slog.Logger) error {
	if o.accEps < 1 {
		return fmt.Errorf("--acc-episodes %d: must be at least 1", o.accEps)
	}
	c, err := o.config(ctx, cmd.Flags(), policy.Env{Log: log, ACCEpisodes: o.accEps, WarnHardware: policy.HardwareAll})
	if err != nil {
		return err
	}
	if o.shard.given(cmd.Flags()) {
		return o.runShard(ctx, cmd, c, log)
	}
	if err := checkReportOutputs(o.out, o.jsonOut); err != nil {
		return err
	}
	total := len(c.Scenarios) * len(c.Policies) * len(c.Seeds)
	log.Info("evaluating", "scenarios", len(c.Scenarios), "policies", len(c.Policies), "seeds", len(c.Seeds), "runs", total)
	bar := progress.NewMeter(cmd.ErrOrStderr(), "eval", "runs", total)
	c.Progress = func(done, _ int) { bar.Step(done, "") }
	start := time.Now()
	rep, err := experiment.Evaluate(ctx, c)
	bar.Done()
	if err != nil {
		return err
	}
	log.Info("evaluated", "wall", time.Since(start).Round(time.Millisecond))
	return printReport(cmd, rep, o.out, o.jsonOut, log)
}

// checkReportOutputs fails early when --out cannot be a directory of
// outputs or --json a file.
func checkReportOutputs(out, jsonOut string) error {
	if err := fileio.CheckOutputDir("--out", out); err != nil {
		return err
	}
	// --json may go into --out, which is created after the run.
	if jsonOut != "" && filepath.Clean(filepath.Dir(jsonOut)) != filepath.Clean(out) {
		if err := fileio.CheckOutputs(nil, "--json", jsonOut); err != nil {
			return err
		}
	}
	return nil
}

// printReport writes rep as eval does, into out (and jsonOut unless ""),
// prints its Markdown on stdout and the files written on stderr.
func printReport(cmd *cobra.Command, rep *experiment.Report, out, jsonOut string, log *slog.Logger) error {
	written, err := report.WriteDir(out, rep, log)
	if err != nil {
		return fmt.Errorf("--out: %w", err)
	}
	if err := writeOutput("json", jsonOut, func(w io.Writer) error { return report.WriteJSON(w, rep) }); err != nil {
		return err
	}
	if err := report.WriteMarkdown(cmd.OutOrStdout(), rep); err != nil {
		return err
	}
	var wrote outputs
	for _, name := range written {
		wrote.add(filepath.Join(out, name))
	}
	if jsonOut != "" {
		wrote.add(jsonOut)
	}
	wrote.report(cmd.ErrOrStderr())
	return nil
}

// runShard runs shard --shard of the evaluation c and writes its part to
// --json.
func (o *evalOpts) runShard(ctx context.Context, cmd *cobra.Command, c experiment.Config, log *slog.Logger) error {
	if cmd.Flags().Changed("out") {
		return errors.New("--out with --shard: a shard writes only its part (--json); graphcc merge --out writes the report")
	}
	runs := func(s experiment.Shard) int { return len(s.Units(len(c.Scenarios) * len(c.Policies) * len(c.Seeds))) }
	return o.shard.run(cmd, o.jsonOut, "eval", runs, func(s experiment.Shard, progress func(int, int)) (*experiment.Part, error) {
		log.Info("evaluating a shard", "shard", s.String(), "runs", runs(s))
		c.Progress = progress
		start := time.Now()
		part, err := experiment.EvaluatePart(ctx, c, s)
		if err == nil {
			log.Info("evaluated a shard", "shard", s.String(), "runs", runs(s), "wall", time.Since(start).Round(time.Millisecond))
		}
		return part, err
	})
}

// listScenarios prints every scenario eval knows, built in and of
// --scenario-file (scenario.Set.WriteList).
func (o *evalOpts) listScenarios(w io.Writer) error {
	set, err := o.scenarioFile.load()
	if err != nil {
		return err
	}
	return set.WriteList(w)
}
