package main

import (
	"context"
	"log/slog"
	"os"

	"github.com/spf13/cobra"

	"graphcc/experiment"
	"graphcc/internal/version"
)

// mergeOpts are the flags of graphcc merge.
type mergeOpts struct {
	out     string
	jsonOut string
	workers int
}

// mergeLong is merge's help.
const mergeLong = `merge puts together the parts that the shards of a sweep wrote (graphcc
eval --shard I/N --json part-I.json, one per shard, any engine running
them) and writes what the sweep run in one process writes: for eval, the
Markdown report on stdout, report.md and the figures in --out and the JSON
report in --json, the very same bytes but for the machine's figures
(wall_seconds and peak_rss_bytes of the runs' summaries, which are the
shards' own).

It refuses, naming the file: a file that is not a part; parts of
different evaluations (other scenarios, policies or their inputs, seeds,
simulator, reference, yardsticks or rewards: their configs' fingerprints
differ); a part of another number of shards; a shard given twice or
missing; a part written by another graphcc build than this one (graphcc
version, and the executable's SHA-256 unless the build stamps a clean VCS
revision: shards and merge must run one binary or image).

docs/scale-out.md describes sharding, part files (docs/formats.md) and the
job files of Slurm and Kubernetes.`

func newMergeCmd(logger loggerFunc) *cobra.Command {
	o := mergeOpts{out: "eval-out"}
	cmd := &cobra.Command{
		Use: "merge PART... [flags]",
		Example: `  graphcc merge part-*.json --json all.json --out suite      # eval's report of every shard's runs
  graphcc merge parts/part-0.json parts/part-1.json --out eval-out`,
		Short: "Merge the parts of a sharded eval into its report",
		Long:  mergeLong,
		Args:  cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return o.run(cmd.Context(), cmd, args, logger(cmd))
		},
	}
	fs := cmd.Flags()
	fs.SortFlags = false
	fs.StringVar(&o.out, "out", o.out, "directory of report.md and the figures (created if missing; its parent must exist), as eval's")
	fs.StringVar(&o.jsonOut, "json", "", "also write the report as JSON here, as eval's --json")
	return cmd
}

func (o *mergeOpts) run(ctx context.Context, cmd *cobra.Command, paths []string, log *slog.Logger) error {
	parts, err := readParts(paths)
	if err != nil {
		return err
	}
	build, err := version.ID()
	if err != nil {
		return err
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

// readParts reads the part files at paths.
func readParts(paths []string) ([]experiment.NamedPart, error) {
	var parts []experiment.NamedPart
	for _, path := range paths {
		f, err := os.Open(path)
		if err != nil {
			return nil, err
		}
		p, err := experiment.ReadPart(f, path)
		f.Close()
		if err != nil {
			return nil, err
		}
		parts = append(parts, experiment.NamedPart{Name: path, Part: p})
	}
	return parts, nil
}
