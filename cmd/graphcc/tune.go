package main

import (
	"context"
	"fmt"
	"io"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"graphcc/experiment"
	"graphcc/scenario"
)

// tuneOpts are the flags of graphcc tune.
type tuneOpts struct {
	scenario     string
	scenarioFile string
	seeds        []uint64
	confirm      []uint64
	grid         string
	refine       int
	top          int
	workers      int
	out          string
}

// tuneLong is tune's help.
const tuneLong = `tune searches the fixed switch ECN settings (thresholds of a 25 Gbps port,
scaled by each port's rate, as static:KMIN_KB,KMAX_KB,PMAX) for the one of
lowest mean FCT slowdown on one scenario:

  1. the grid (--grid): paper, the 120 fixed settings of the learned
     policies' action set; extended (the default), those and 145 more
     outside it: kmin 0 and 1 KB, kmax 2, 4, 8 and 512 KB (265 settings);
  2. --refine rounds around the --top settings of lowest slowdown so far:
     each of kmin, kmax and pmax halved and doubled in the first round, the
     step's factor square-rooted each round after (2, 1.41, 1.19, …),
     settings already run skipped;
  3. the selection: every setting scored by its mean slowdown over the
     flows of every validation seed (--seeds) together, as eval does;
  4. the confirmation on other seeds (--confirm-seeds): the winner, static
     and the best of the paper's 120 on the validation seeds, with the
     winner's ratios to both and their 95 % intervals (3 seeds or more).

Neither --seeds nor --confirm-seeds may hold the evaluation seeds
1001-1010. Every round runs its settings × seeds in parallel (--workers).
Progress goes to stderr, a line per round; the summary to stdout; the
result, as JSON (docs/formats.md), to --out. Its best_policy is a spec
that sim --policy and eval --policies take, and tuned:FILE runs it.`

func newTuneCmd() *cobra.Command {
	o := tuneOpts{
		scenario: scenario.Default().Name,
		seeds:    experiment.DefaultTuneSeeds(),
		confirm:  experiment.DefaultConfirmSeeds(),
		grid:     "extended",
		refine:   experiment.DefaultTuneRefine,
		top:      experiment.DefaultTuneTop,
		out:      "tune.json",
	}
	cmd := &cobra.Command{
		Use: "tune [flags]",
		Example: `  graphcc tune                                        # fb60-incast: extended grid, 2 refinement rounds
  graphcc tune --grid paper --refine 0 --workers 2 --out fb60.json
  graphcc tune --scenario websearch60 --seeds 2001-2005 --top 5 --out websearch60.json`,
		Short: "Find the best fixed ECN setting of a scenario: grid, refinement, confirmation",
		Long:  tuneLong,
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return o.run(cmd.Context(), cmd)
		},
	}
	fs := cmd.Flags()
	fs.SortFlags = false
	fs.StringVar(&o.scenario, "scenario", o.scenario, "scenario to tune (see graphcc eval --help for the names); with --scenario-file, the file's only scenario by default")
	fs.StringVar(&o.scenarioFile, "scenario-file", "", scenarioFileHelp)
	fs.Var(newSeedsFlag(&o.seeds), "seeds", "validation seeds the selection scores on (not 1001-1010)")
	fs.Var(newSeedsFlag(&o.confirm), "confirm-seeds", "seeds of the confirmation, apart from --seeds (not 1001-1010)")
	fs.StringVar(&o.grid, "grid", o.grid, "coarse grid: paper (the 120 of the action set) or extended (265, with kmin 0 and 1 KB, kmax 2 to 8 and 512 KB)")
	fs.IntVar(&o.refine, "refine", o.refine, "refinement rounds around the leaders")
	fs.IntVar(&o.top, "top", o.top, "leaders refined each round")
	fs.IntVar(&o.workers, "workers", 0, "simulations run at once (0: one per CPU)")
	fs.StringVar(&o.out, "out", o.out, "JSON result file")
	return cmd
}

// config builds the search of the flags.
func (o *tuneOpts) config(fs *pflag.FlagSet) (experiment.TuneConfig, error) {
	var c experiment.TuneConfig
	set, err := loadScenarioSet(o.scenarioFile)
	if err != nil {
		return c, err
	}
	name := o.scenario
	if o.scenarioFile != "" && !fs.Changed("scenario") {
		name = "" // the file's only scenario
	}
	if c.Scenario, err = set.pick(name); err != nil {
		return c, err
	}
	switch o.grid {
	case "paper":
		c.Grid = experiment.PaperGrid()
	case "extended":
		c.Grid = experiment.ExtendedGrid()
	default:
		return c, fmt.Errorf("--grid %s: want paper or extended", o.grid)
	}
	switch {
	case o.refine < 0:
		return c, fmt.Errorf("--refine %d: must not be negative", o.refine)
	case o.top < 1:
		return c, fmt.Errorf("--top %d: must be at least 1", o.top)
	case o.workers < 0:
		return c, fmt.Errorf("--workers %d: must not be negative (0 = one per CPU)", o.workers)
	case len(o.seeds) == 0:
		return c, fmt.Errorf("--seeds: no seed given")
	case len(o.confirm) == 0:
		return c, fmt.Errorf("--confirm-seeds: no seed given")
	}
	if err := experiment.CheckTrainingSeeds(o.seeds); err != nil {
		return c, fmt.Errorf("--seeds: %w", err)
	}
	if err := experiment.CheckTrainingSeeds(o.confirm); err != nil {
		return c, fmt.Errorf("--confirm-seeds: %w", err)
	}
	c.Refine, c.Top, c.Workers = o.refine, o.top, o.workers
	c.Seeds, c.ConfirmSeeds = o.seeds, o.confirm
	return c, nil
}

func (o *tuneOpts) run(ctx context.Context, cmd *cobra.Command) error {
	c, err := o.config(cmd.Flags())
	if err != nil {
		return err
	}
	if err := checkOutputs("out", o.out); err != nil {
		return err
	}
	bar := newMeter(cmd.ErrOrStderr(), "tune", "rounds", c.Refine+2)
	done := 0
	c.Progress = func(r experiment.TuneRound) {
		done++
		bar.step(done, fmt.Sprintf("%s, %d settings run; best %s, mean slowdown %.3f", r.Name, r.Settings, r.Best, r.Score))
	}
	start := time.Now()
	res, err := experiment.Tune(ctx, c)
	bar.done()
	if err != nil {
		return err
	}
	var wrote outputs
	if err := wrote.write("out", o.out, res.WriteJSON); err != nil {
		return err
	}
	if err := writeTuneSummary(cmd.OutOrStdout(), res, time.Since(start)); err != nil {
		return err
	}
	wrote.report(cmd.ErrOrStderr())
	return nil
}

// writeTuneSummary prints the winner and its confirmation as a table.
func writeTuneSummary(w io.Writer, r *experiment.TuneResult, wall time.Duration) error {
	fmt.Fprintf(w, "tune %s: %d settings on seeds %s in %s; best %s (mean slowdown %.3f)\n\n",
		r.Scenario, len(r.Runs), experiment.FormatSeeds(r.Seeds), wall.Round(time.Second), r.BestPolicy, r.Score)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "confirmation (seeds %s)\tmean slowdown\tbest_policy's ratio (95 %% CI)\n", experiment.FormatSeeds(r.Confirm.Seeds))
	fmt.Fprintf(tw, "%s (best_policy)\t%.3f\t\n", r.BestPolicy, r.Confirm.MeanSlowdown["best_policy"])
	fmt.Fprintf(tw, "static\t%.3f\t%s\n", r.Confirm.MeanSlowdown["static"], formatTuneRatio(r.Confirm.VsStatic))
	same := r.Confirm.PaperGridBest == r.BestPolicy
	if r.Confirm.VsPaperGridBest != nil && !same {
		fmt.Fprintf(tw, "%s (paper grid's best)\t%.3f\t%s\n", r.Confirm.PaperGridBest, r.Confirm.MeanSlowdown["paper_grid_best"], formatTuneRatio(*r.Confirm.VsPaperGridBest))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if same {
		_, err := fmt.Fprintf(w, "(%s is also the paper grid's best)\n", r.BestPolicy)
		return err
	}
	return nil
}

// formatTuneRatio writes "0.812 (0.790–0.835)", or the value alone
// without an interval.
func formatTuneRatio(r experiment.TuneRatio) string {
	if r.Lo == nil || r.Hi == nil {
		return fmt.Sprintf("%.3f", r.Value)
	}
	return fmt.Sprintf("%.3f (%.3f–%.3f)", r.Value, *r.Lo, *r.Hi)
}
