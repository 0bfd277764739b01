package main

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"

	"github.com/spf13/cobra"

	"graphcc/experiment"
	"graphcc/experiment/headroom"
	"graphcc/internal/fileio"
	"graphcc/internal/version"
	"graphcc/policy"
)

// headroomOpts are the flags of graphcc headroom.
type headroomOpts struct {
	eval                   evalOpts // --scenario-file, --policies, --workers, --interval, the hardware
	scenario, out, jsonOut string
	set                    headroom.Settings // --grid, --tune, --also, --segment
	shard                  shardFlag
	c                      headroom.Config
}

func newHeadroomCmd(lookup lookupFunc) *cobra.Command {
	o := headroomOpts{eval: evalOpts{scenarioFile: scenarioFileFlag{lookup: lookup}, hw: defaultHW()},
		out: "headroom-out", set: headroom.DefaultSettings(), c: headroom.DefaultConfig()}
	cmd := &cobra.Command{
		Use: "headroom [flags]",
		Example: `  graphcc headroom --scenario day --policies graphcc,graphcc:models/graphcc-hosts.model --out day-headroom
  graphcc headroom --scenario day --shard 0/4 --json search-0.json              # then graphcc merge search-*.json --json day-tune.json
  graphcc headroom --scenario day --tune day-tune.json --shard 0/4 --json rows-0.json  # then graphcc merge rows-*.json --out day`,
		Short: "Measure what adaptation could win on a scenario: ideal, best constant, best schedule, policies",
		Long: `headroom reports, on --report-seeds, the fair-share ideal, the best fixed
configuration (tune's search on --seeds, joint with the hosts' DCQCN when the
hardware allows), the best schedule over the scenario's phases (or --segment
segments) of the best constant, --also's configurations (for instance other
traffic's tuned constants) and the search's best runs, found by coordinate
descent on --seeds, and --policies. It writes headroom.md, headroom.json and
its journal to --out; run again with the same --out, it resumes. With
--shard it runs one shard of the search's grid or, with --tune, of the rows
that do not depend on the schedule, for graphcc merge (docs/scale-out.md).
docs/learning.md ("Headroom") describes it.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return o.run(cmd.Context(), cmd) },
	}
	fs := cmd.Flags()
	fs.SortFlags = false
	fs.StringVar(&o.scenario, "scenario", "fb60-incast", "scenario (see graphcc eval --list-scenarios); with --scenario-file, the file's only scenario by default")
	o.eval.scenarioFile.add(fs, true)
	fs.StringArrayVar(&o.eval.specs.Policies, "policies", nil, "comma-separated policies to report beside the yardsticks (as eval's --policies); repeatable")
	fs.Var(newSeedsFlag(&o.c.SelectSeeds), "seeds", "seeds the search and the schedule are selected on (not 1001-1010)")
	fs.Var(newSeedsFlag(&o.c.ReportSeeds), "report-seeds", "seeds every row is reported on, apart from --seeds")
	fs.StringVar(&o.set.Grid, "grid", o.set.Grid, "the search's coarse grid: coarse (39 settings), or as tune's --grid")
	fs.IntVar(&o.c.Refine, "refine", o.c.Refine, "the search's refinement rounds (-1: none)")
	fs.IntVar(&o.c.Top, "top", o.c.Top, "leaders the search refines each round")
	fs.BoolVar(&o.c.SwitchOnly, "switch-only", false, "search the switches' ECN setting alone, not jointly with the hosts' DCQCN constants")
	fs.StringVar(&o.set.Tune, "tune", "", "a tune result of --scenario on --seeds and this hardware (graphcc tune, or graphcc merge of its --shard parts) to use instead of searching")
	fs.StringVar(&o.set.Segment, "segment", o.set.Segment, "segment length of a scenario without phases")
	fs.IntVar(&o.c.Candidates, "candidates", o.c.Candidates, "settings a segment may take: the best constant, --also's, then the search's best runs")
	fs.StringSliceVar(&o.set.Also, "also", nil, "tune results (comma-separated; repeatable) whose best configurations a segment may also take, for instance other traffic's (models/tuned-joint/*.json)")
	fs.IntVar(&o.c.Passes, "passes", o.c.Passes, "most passes of the coordinate descent")
	fs.IntVar(&o.eval.set.Workers, "workers", 0, "simulations run at once (0: one per CPU)")
	fs.StringVar(&o.out, "out", o.out, "directory of headroom.md, headroom.json and journal.json (created if missing)")
	o.shard.add(fs, "the search's grid or, with --tune, of the rows that do not depend on the schedule")
	fs.StringVar(&o.jsonOut, "json", "", "with --shard, the file of the shard's part (required)")
	o.eval.hw.add(fs, omitECN)
	o.eval.interval.add(fs, "")
	return cmd
}

// config builds the measurement of the flags.
func (o *headroomOpts) config(ctx context.Context, cmd *cobra.Command) error {
	c, fs := &o.c, cmd.Flags()
	set, err := o.eval.scenarioFile.load()
	if err != nil {
		return err
	}
	name := o.scenario
	if o.eval.scenarioFile.path != "" && !fs.Changed("scenario") {
		name = ""
	}
	if c.Scenario, err = set.Pick(name, "--"); err != nil {
		return err
	}
	if c.Params, err = o.eval.hw.params(); err != nil {
		return err
	}
	if c.Interval, err = o.eval.interval.parse(); err != nil {
		return err
	}
	if err := o.set.Apply(c, "--"); err != nil {
		return err
	}
	if len(o.eval.specs.Policies) > 0 {
		var ec experiment.Config
		if err := o.eval.specs.Resolve(ctx, policy.Env{Params: c.Params, Interval: c.Interval}, &ec, "--"); err != nil {
			return err
		}
		c.Policies = ec.Policies
	}
	c.Workers = o.eval.set.Workers
	return nil
}

func (o *headroomOpts) run(ctx context.Context, cmd *cobra.Command) error {
	if err := o.config(ctx, cmd); err != nil {
		return err
	}
	if o.shard.given(cmd.Flags()) {
		return o.runShard(ctx, cmd)
	}
	if o.jsonOut != "" {
		return fmt.Errorf("--json %s: only with --shard (the report is --out's)", o.jsonOut)
	}
	if err := fileio.CheckOutputDir("--out", o.out); err != nil {
		return err
	}
	build, err := version.ID()
	if err != nil {
		return err
	}
	if err := prepareHeadroom(cmd, &o.c, o.out, build); err != nil {
		return err
	}
	res, err := headroom.Measure(ctx, o.c)
	if err != nil {
		return err
	}
	return writeHeadroom(cmd, res, o.out)
}

// prepareHeadroom makes the measurement c resume from and journal to
// out's journal.json, and report its progress on stderr.
func prepareHeadroom(cmd *cobra.Command, c *headroom.Config, out, build string) error {
	if err := headroom.Resume(c, filepath.Join(out, "journal.json"), build); err != nil {
		return fmt.Errorf("--out: %w", err)
	}
	c.Progress = headroomProgress(cmd)
	return nil
}

// headroomProgress reports a measurement's progress on stderr.
func headroomProgress(cmd *cobra.Command) func(string) {
	return func(msg string) { fmt.Fprintf(cmd.ErrOrStderr(), "graphcc: headroom: %s\n", msg) }
}

// writeHeadroom writes res into out and its Markdown on stdout.
func writeHeadroom(cmd *cobra.Command, res *headroom.Result, out string) error {
	paths, err := res.WriteDir(out)
	if err != nil {
		return fmt.Errorf("--out: %w", err)
	}
	defer (&outputs{paths: paths}).report(cmd.ErrOrStderr())
	return res.WriteMarkdown(cmd.OutOrStdout())
}

// runShard runs shard --shard of the search's grid round or, with --tune,
// of the rows that do not depend on the schedule, and writes its part to
// --json.
func (o *headroomOpts) runShard(ctx context.Context, cmd *cobra.Command) error {
	if cmd.Flags().Changed("out") {
		return errors.New("--out with --shard: a shard writes only its part (--json); graphcc merge writes the rest")
	}
	o.c.Progress = headroomProgress(cmd)
	stage, part := "headroom search", headroom.SearchPart
	runs := func(s experiment.Shard) int { return headroom.SearchRuns(o.c, s) }
	if o.c.Tuned != nil {
		stage, part = "headroom rows", headroom.RowsPart
		runs = func(s experiment.Shard) int { return headroom.RowsRuns(ctx, o.c, s) }
	}
	return o.shard.run(cmd, o.jsonOut, stage, runs, func(s experiment.Shard, progress func(int, int)) (*experiment.Part, error) {
		o.c.RunProgress = progress
		return part(ctx, o.c, s)
	})
}
