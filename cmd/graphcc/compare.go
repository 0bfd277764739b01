package main

import (
	"fmt"
	"io"
	"log/slog"
	"math"

	"github.com/spf13/cobra"

	"graphcc/internal/fileio"
	"graphcc/metrics"
	"graphcc/trace"
)

// compareOpts are the flags of graphcc compare.
type compareOpts struct {
	tol  float64
	json string
}

func newCompareCmd(logger loggerFunc) *cobra.Command {
	o := compareOpts{tol: 0.10}
	cmd := &cobra.Command{
		Use: "compare OURS.fct REF.fct [flags]",
		Example: `  graphcc compare ours.fct hpcc/fct.txt            # within 10 % on every statistic?
  graphcc compare a.fct b.fct --tol 0.05 --json cmp.json`,
		Short: "Compare the FCT slowdowns of two fct.txt files (graphcc vs HPCC's ns-3)",
		Long: `compare reads two fct.txt files (graphcc's or HPCC's) and prints the mean,
p50, p95 and p99 FCT slowdown of both per group of flows with their
relative error; it fails when one exceeds --tol. docs/cli.md has the
details.`,
		Args: cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			return o.run(cmd, logger(cmd), args[0], args[1])
		},
	}
	fs := cmd.Flags()
	fs.SortFlags = false
	fs.Float64Var(&o.tol, "tol", o.tol, "largest accepted |relative error| of a statistic (0.10 = 10%)")
	fs.StringVar(&o.json, "json", "", "also write the comparison here as JSON")
	return cmd
}

func (o *compareOpts) run(cmd *cobra.Command, log *slog.Logger, oursPath, refPath string) error {
	if !(o.tol >= 0) || math.IsInf(o.tol, 1) {
		return fmt.Errorf("--tol %v: must be a non-negative number", o.tol)
	}
	if err := fileio.CheckOutputs([]string{"OURS.fct", oursPath, "REF.fct", refPath}, "--json", o.json); err != nil {
		return err
	}
	ours, err := trace.LoadFCT(oursPath)
	if err != nil {
		return err
	}
	ref, err := trace.LoadFCT(refPath)
	if err != nil {
		return err
	}
	c := metrics.Compare(ours, ref, nil)
	if !c.SameFlows() {
		log.Warn("the two files hold different flows", "ours_only", len(c.OursOnly), "ref_only", len(c.RefOnly),
			"matched", c.Matched)
	}
	out := cmd.OutOrStdout()
	fmt.Fprintf(out, "# ours %s, ref %s\n\n", oursPath, refPath)
	if err := c.WriteTable(out, o.tol); err != nil {
		return err
	}
	if err := writeOutput("json", o.json, func(w io.Writer) error { return fileio.WriteJSON(w, c.Report(oursPath, refPath, o.tol)) }); err != nil {
		return err
	}
	return c.Within(o.tol)
}

func newSummarizeCmd() *cobra.Command {
	return &cobra.Command{
		Use: "summarize FCT...",
		Example: `  graphcc summarize fct.txt
  graphcc summarize static.fct graphcc.fct`,
		Short: "Print the FCT slowdown summary of fct.txt files (graphcc's or HPCC's)",
		Long: `summarize reads each fct.txt file (graphcc's decimal node ids or HPCC's hex
IPs) and prints the slowdown table of graphcc sim: FCT slowdown (mean, p50,
p95, p99) of all flows, per flow-size bin, of incast and background flows,
then the flow count and the mean per-flow throughput. Use it on the output
of HPCC's ns-3 simulator to read it the way graphcc reports its own runs.`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			out := cmd.OutOrStdout()
			for i, path := range args {
				recs, err := trace.LoadFCT(path)
				if err != nil {
					return err
				}
				if i > 0 {
					fmt.Fprintln(out)
				}
				fmt.Fprintf(out, "# %s\n\n", path)
				if err := metrics.Summarize(len(recs), recs, nil).WriteFCTTable(out); err != nil {
					return err
				}
			}
			return nil
		},
	}
}
