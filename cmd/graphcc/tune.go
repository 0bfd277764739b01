package main

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"graphcc/experiment"
	"graphcc/experiment/tune"
	"graphcc/internal/fileio"
	"graphcc/internal/progress"
	"graphcc/scenario"
)

// tuneOpts are the flags of graphcc tune.
type tuneOpts struct {
	scenario     string
	scenarioFile scenarioFileFlag
	s            tune.Settings
	shard        shardFlag
	jsonOut      string
	hw           hwFlags
	interval     intervalFlag
}

func newTuneCmd(lookup lookupFunc) *cobra.Command {
	o := tuneOpts{scenarioFile: scenarioFileFlag{lookup: lookup}, scenario: scenario.Default().Name, s: tune.DefaultSettings(), hw: defaultHW()}
	cmd := &cobra.Command{
		Use: "tune [flags]",
		Example: `  graphcc tune --json fb60.json                       # fb60-incast: extended grid, 2 refinement rounds
  graphcc tune --grid paper --dcqcn --roles --json fb60-joint.json  # hosts' DCQCN and port roles too
  graphcc tune --grid paper --shard 0/4 --json part-0.json          # a quarter of the grid; graphcc merge part-*.json --json fb60.json`,
		Short: "Find the best fixed ECN setting (and DCQCN constants) of a scenario or a suite: grid, refinement, confirmation",
		Long: `tune searches fixed configurations (a switch ECN setting, with --roles one per
port role, with --dcqcn the hosts' DCQCN constants too) for the one of
lowest mean FCT slowdown on --scenario, on validation seeds, and confirms it
on other seeds. It prints a summary and writes the result to --json; its
best_policy is a spec sim, eval and testbed run take. docs/cli.md
describes the rounds, the hardware flags and sharding.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return o.run(cmd.Context(), cmd)
		},
	}
	fs := cmd.Flags()
	fs.SortFlags = false
	fs.StringVar(&o.scenario, "scenario", o.scenario, "scenario to tune (see graphcc eval --list-scenarios), or several comma-separated (family:A-B: a family's draws A to B) or all for one configuration for all of them; with --scenario-file, the file's only scenario by default")
	o.scenarioFile.add(fs, false)
	fs.Var(newSeedsFlag(&o.s.Seeds), "seeds", "validation seeds the selection scores on (not 1001-1010)")
	fs.Var(newSeedsFlag(&o.s.ConfirmSeeds), "confirm-seeds", "seeds of the confirmation, apart from --seeds (not 1001-1010)")
	fs.StringVar(&o.s.Grid, "grid", o.s.Grid, "coarse grid: paper (the 120 of the action set), extended (265, with kmin 0 and 1 KB, kmax 2 to 8 and 512 KB), or actions:SET, the 120 settings of train's --actions table SET (paper, extended or rpc): labels such a model plays exactly")
	fs.IntVar(&o.s.Refine, "refine", o.s.Refine, "refinement rounds around the leaders")
	fs.IntVar(&o.s.Top, "top", o.s.Top, "leaders refined each round")
	fs.BoolVar(&o.s.DCQCN, "dcqcn", false, "tune the hosts' DCQCN reaction point (rate-increase timer, alpha and decrease periods, AI, HAI) jointly, from the hardware's constants (--dcqcn-*)")
	fs.BoolVar(&o.s.Roles, "roles", false, "tune the switch ports facing a host and those facing a switch apart (an edge: policy)")
	fs.IntVar(&o.s.Workers, "workers", 0, "simulations run at once (0: one per CPU)")
	fs.StringVar(&o.s.Reuse, "reuse", "", "directory of one-scenario tune results (DIR/<scenario>.json, e.g. models/tuned): a configuration such a file ran on the same seeds and hardware is not simulated again on its scenario (a search of several scenarios, or of one with --dcqcn or --roles from where its switch-only search ended); the winner is run again and must score as its files say")
	o.shard.add(fs, "the grid round")
	fs.StringVar(&o.jsonOut, "json", "", "write the result here as JSON (default tune.json); with --shard, the shard's part (required)")
	addRenamed(fs, &o.jsonOut, "out", "json")
	o.hw.add(fs, omitECN)
	o.interval.add(fs, "")
	return cmd
}

// config builds the search of the flags.
func (o *tuneOpts) config(fs *pflag.FlagSet) (tune.Config, error) {
	var c tune.Config
	var err error
	if c.Scenarios, err = o.scenarioFile.resolve(fs, "scenario", o.scenario, false); err != nil {
		return c, err
	}
	if err := o.s.Apply(&c, "--"); err != nil {
		return c, err
	}
	return c, o.hardware(fs, &c)
}

// hardware sets c's simulated hardware and control interval from the
// flags, refusing the ECN flags (tune searches the thresholds), a fabric
// of c.Scenarios that cannot run the hardware, and with --dcqcn hosts'
// constants that no +dcqcn: spec can start from.
func (o *tuneOpts) hardware(fs *pflag.FlagSet, c *tune.Config) error {
	var err error
	if c.Params, err = o.hw.params(); err != nil {
		return err
	}
	if c.Interval, err = o.interval.parse(); err != nil {
		return err
	}
	if err := o.hw.checkScenarios(c.Scenarios); err != nil {
		return err
	}
	if o.s.DCQCN {
		if err := tune.HardwareDCQCN(c.Params).Params().Validate(); err != nil {
			return fmt.Errorf("--dcqcn starts from the hosts' constants of --%s, which must be a NIC's: %w",
				strings.Join(hostSpecFlagNames(), ", --"), err)
		}
	}
	return nil
}

func (o *tuneOpts) run(ctx context.Context, cmd *cobra.Command) error {
	c, err := o.config(cmd.Flags())
	if err != nil {
		return err
	}
	if o.shard.given(cmd.Flags()) {
		return o.runShard(ctx, cmd, c)
	}
	if o.jsonOut == "" {
		o.jsonOut = "tune.json"
	}
	if err := fileio.CheckOutputs(nil, "--json", o.jsonOut); err != nil {
		return err
	}
	return runSearch(cmd, o.jsonOut, c.Rounds(), func(progress func(tune.Round)) (*tune.Result, error) {
		c.Progress = progress
		return tune.Search(ctx, c)
	})
}

// runSearch runs search, a search of rounds rounds (tune's, or the rest of
// merged parts'), calling progress after each, writes its result to
// jsonOut and prints its summary.
func runSearch(cmd *cobra.Command, jsonOut string, rounds int, search func(progress func(tune.Round)) (*tune.Result, error)) error {
	bar := progress.NewMeter(cmd.ErrOrStderr(), "tune", "rounds", rounds)
	done := 0
	start := time.Now()
	res, err := search(func(r tune.Round) {
		done++
		bar.Step(done, r.String())
	})
	bar.Done()
	if err != nil {
		return err
	}
	var wrote outputs
	if err := wrote.write("json", jsonOut, res.WriteJSON); err != nil {
		return err
	}
	if err := res.WriteSummary(cmd.OutOrStdout(), time.Since(start)); err != nil {
		return err
	}
	wrote.report(cmd.ErrOrStderr())
	return nil
}

// runShard runs shard --shard of the grid of the search c and writes
// its part to --json.
func (o *tuneOpts) runShard(ctx context.Context, cmd *cobra.Command, c tune.Config) error {
	if o.s.Reuse != "" {
		return fmt.Errorf("--reuse with --shard: a shard runs its part of the grid whole (reuse the priors in one process instead)")
	}
	runs := func(s experiment.Shard) int {
		return len(s.Units(tune.GridSize(c.Grid))) * len(c.Scenarios) * len(c.Seeds)
	}
	return o.shard.run(cmd, o.jsonOut, "tune grid", runs, func(s experiment.Shard, progress func(int, int)) (*experiment.Part, error) {
		c.RunProgress = progress
		return tune.GridPart(ctx, c, s)
	})
}
