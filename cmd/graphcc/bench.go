package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"runtime/pprof"

	"github.com/spf13/cobra"

	"graphcc/internal/fileio"
	"graphcc/replay/bench"
)

// benchOpts are the flags of graphcc bench.
type benchOpts struct {
	sc         scenarioFlags
	runs       int
	json       string
	sweep      bool
	cpuprofile string
}

// benchScenario is the benchmark: the GraphCC scenario without incasts
// (FB_Hadoop at 60 % load, 25 ms of arrivals, seed 1), run until every flow
// finishes.
func benchScenario() scenarioFlags {
	sc := defaultScenario()
	sc.Gen.IncastPeriod = "0"
	return sc
}

func newBenchCmd(logger loggerFunc) *cobra.Command {
	o := benchOpts{sc: benchScenario(), runs: 3}
	cmd := &cobra.Command{
		Use: "bench [flags]",
		Example: `  graphcc bench                       # the benchmark scenario, 3 timed runs
  graphcc bench --runs 5 --json b.json
  graphcc bench --sweep               # loads 0.4-0.9 and larger fabrics, a Markdown table`,
		Short: "Time the simulator on the benchmark scenario",
		Long: `bench times the simulator on the benchmark scenario (the GraphCC Clos with
FB_Hadoop at 60 % load without incasts, seed 1) and prints events per wall
second, simulated seconds per wall second, wall time and peak RSS; --sweep
runs loads and fabric sizes into a Markdown table. docs/cli.md has the
details.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return o.run(cmd.Context(), cmd, logger(cmd))
		},
	}
	fs := cmd.Flags()
	fs.SortFlags = false
	fs.IntVar(&o.runs, "runs", o.runs, "timed runs per scenario")
	fs.StringVar(&o.json, "json", "", "also write the results here as JSON")
	fs.BoolVar(&o.sweep, "sweep", false, "run the load and fabric-size sweep and print a Markdown table")
	fs.StringVar(&o.cpuprofile, "cpuprofile", "", "write a CPU profile of the timed runs here (go tool pprof)")
	o.sc.add(fs, 0)
	return cmd
}

func (o *benchOpts) run(ctx context.Context, cmd *cobra.Command, log *slog.Logger) error {
	if o.runs < 1 {
		return fmt.Errorf("--runs %d: must be at least 1", o.runs)
	}
	if err := fileio.CheckOutputs(nil, "--json", o.json, "--cpuprofile", o.cpuprofile); err != nil {
		return err
	}
	if o.cpuprofile != "" {
		f, err := os.Create(o.cpuprofile)
		if err != nil {
			return fmt.Errorf("--cpuprofile: %w", err)
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			return fmt.Errorf("--cpuprofile: %w", err)
		}
		defer pprof.StopCPUProfile()
	}
	fs := cmd.Flags()
	o.sc.warnIgnored(fs, log)
	if err := o.sc.checkIncast(fs); err != nil {
		return err
	}
	out := cmd.OutOrStdout()
	report := bench.NewReport(o.runs)
	if o.sweep {
		for _, n := range []string{"load", "leaves", "spines", "hosts-per-leaf", "topo"} {
			if fs.Changed(n) {
				return fmt.Errorf("--%s: --sweep sets the load and the fabric itself", n)
			}
		}
		if err := report.RunSweep(ctx, o.sc.Settings, out, "--", log); err != nil {
			return err
		}
	} else {
		bc, err := bench.Measure(ctx, o.sc.Settings, o.runs, "--", log)
		if err != nil {
			return err
		}
		report.Cases = append(report.Cases, bc)
		if err := bc.WriteText(out, report.GOMAXPROCS); err != nil {
			return err
		}
	}
	var wrote outputs
	if err := wrote.write("json", o.json, func(w io.Writer) error { return fileio.WriteJSON(w, report) }); err != nil {
		return err
	}
	wrote.report(cmd.ErrOrStderr())
	return nil
}

// flagChanger is what scenarioFlags asks of a flag set.
type flagChanger interface{ Changed(name string) bool }
