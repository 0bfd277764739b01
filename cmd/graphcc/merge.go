package main

import (
	"context"
	"fmt"
	"log/slog"

	"github.com/spf13/cobra"

	"graphcc/experiment"
	"graphcc/experiment/headroom"
	"graphcc/experiment/tune"
	"graphcc/internal/fileio"
	"graphcc/internal/version"
)

// mergeOpts are the flags of graphcc merge.
type mergeOpts struct {
	out     string
	jsonOut string
	workers int
}

func newMergeCmd(logger loggerFunc) *cobra.Command {
	o := mergeOpts{out: "eval-out"}
	cmd := &cobra.Command{
		Use: "merge PART... [flags]",
		Example: `  graphcc merge part-*.json --json all.json --out suite      # eval's report of every shard's runs
  graphcc merge parts/part-0.json parts/part-1.json --out eval-out
  graphcc merge tune-part-*.json --json fb60.json --workers 2   # tune --shard's grid, then the rest of the search here
  graphcc merge rows-*.json --out day --workers 2                # headroom --tune --shard's rows, then the descent here`,
		Short: "Merge the parts of a sharded eval into its report, or of a sharded tune's grid into its result",
		Long: `merge puts together the parts the shards of a sweep wrote (eval --shard,
tune --shard or headroom --shard, each with --json PART) and writes what the
sweep run in one process writes: eval's report (--out, --json), tune's result
(--json) after running the rest of the search, or headroom's (--out) after
running its descent. docs/scale-out.md describes sharding.`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return o.run(cmd.Context(), cmd, args, logger(cmd))
		},
	}
	fs := cmd.Flags()
	fs.SortFlags = false
	fs.StringVar(&o.out, "out", o.out, "directory of report.md and the figures (created if missing; its parent must exist), as eval's")
	fs.StringVar(&o.jsonOut, "json", "", "also write the report as JSON here, as eval's --json; of tune parts, the tune result (tune's --json)")
	fs.IntVar(&o.workers, "workers", 0, "of tune parts: simulations run at once in the rounds after the grid; of headroom parts, in the descent and the schedule's rows (0: one per CPU)")
	return cmd
}

func (o *mergeOpts) run(ctx context.Context, cmd *cobra.Command, paths []string, log *slog.Logger) error {
	var ins []string
	for _, p := range paths {
		ins = append(ins, "part", p)
	}
	if err := fileio.CheckDistinct([]string{"--json", o.jsonOut}, ins); err != nil {
		return err
	}
	parts, closeAll, err := experiment.OpenParts(paths)
	if err != nil {
		return err
	}
	defer closeAll()
	build, err := version.ID()
	if err != nil {
		return err
	}
	if o.workers < 0 {
		return fmt.Errorf("--workers %d: must not be negative (0 = one per CPU)", o.workers)
	}
	switch parts[0].Kind {
	case experiment.PartTuneGrid:
		return o.runTune(ctx, cmd, parts, build)
	case experiment.PartHeadroom:
		return o.runHeadroom(ctx, cmd, parts, build)
	}
	if err := checkReportOutputs(o.out, o.jsonOut); err != nil {
		return err
	}
	rep, err := experiment.Merge(parts, build)
	if err != nil {
		return err
	}
	log.Info("merged", "parts", len(parts), "scenarios", len(rep.Scenarios), "policies", len(rep.Policies), "seeds", len(rep.Seeds))
	return printReport(cmd, rep, o.out, o.jsonOut, log)
}

// runTune merges the parts of a search's grid, runs the rest of the
// search and writes its result to --json.
func (o *mergeOpts) runTune(ctx context.Context, cmd *cobra.Command, parts []*experiment.PartReader, build string) error {
	switch {
	case cmd.Flags().Changed("out"):
		return fmt.Errorf("--out: the parts of tune --shard (%s) merge into a tune result, --json", parts[0].Name())
	case o.jsonOut == "":
		return fmt.Errorf("--json: give the file of the tune result that the parts of tune --shard (%s) merge into", parts[0].Name())
	}
	if err := fileio.CheckOutputs(nil, "--json", o.jsonOut); err != nil {
		return err
	}
	c, err := tune.ConfigOf(parts[0].Part)
	if err != nil {
		return fmt.Errorf("%s: %w", parts[0].Name(), err)
	}
	return runSearch(cmd, o.jsonOut, c.Rounds(), func(progress func(tune.Round)) (*tune.Result, error) {
		return tune.Merge(ctx, parts, build, tune.MergeOptions{Workers: o.workers, Progress: progress})
	})
}

// runHeadroom merges the parts of a headroom measurement's rows, measures
// the rest (the descent, the schedule's rows) and writes what headroom
// writes into --out, resuming from its journal there.
func (o *mergeOpts) runHeadroom(ctx context.Context, cmd *cobra.Command, parts []*experiment.PartReader, build string) error {
	switch {
	case o.jsonOut != "":
		return fmt.Errorf("--json: the parts of headroom --shard (%s) merge into --out's headroom.json", parts[0].Name())
	case !cmd.Flags().Changed("out"):
		return fmt.Errorf("--out: give the directory the parts of headroom --shard (%s) merge into", parts[0].Name())
	}
	if err := fileio.CheckOutputDir("--out", o.out); err != nil {
		return err
	}
	res, err := headroom.Merge(ctx, parts, build, func(c *headroom.Config) error {
		c.Workers = o.workers
		return prepareHeadroom(cmd, c, o.out, build)
	})
	if err != nil {
		return err
	}
	return writeHeadroom(cmd, res, o.out)
}
