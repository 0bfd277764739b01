package main

import (
	"errors"
	"fmt"
	"io"
	"log/slog"

	"github.com/spf13/cobra"

	"graphcc/internal/fileio"
	"graphcc/trace"
	"graphcc/workload"
)

// genOpts are the flags of graphcc gen.
type genOpts struct {
	traceFlags
	out     string
	topoOut string
}

func newGenCmd(logger loggerFunc, lookup lookupFunc) *cobra.Command {
	o := genOpts{traceFlags: traceFlags{sc: defaultScenario(), scenarioFile: scenarioFileFlag{lookup: lookup}}}
	cmd := &cobra.Command{
		Use: "gen --flows-out FILE [flags]",
		Example: `  graphcc gen --flows-out flow.txt --topo-out topology.txt   # the training scenario's traffic, seed 1
  graphcc gen --flows-out ws.txt --workload websearch --load 0.8 --no-incast --seed 7
  graphcc gen --scenario day --seed 2001 --flows-out day.txt  # a phased scenario's trace, as eval draws it`,
		Short: "Generate a flow trace (HPCC flow.txt) for a scenario",
		Long: `gen draws a flow trace for the fabric from the fabric and traffic flags, or
an eval scenario's (--scenario), and writes it to --flows-out in HPCC's
flow.txt format. docs/cli.md describes the traffic it draws.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if o.out == "" {
				return errors.New("--flows-out: required")
			}
			if err := fileio.CheckOutputs([]string{"--topo", o.sc.Topology, "--scenario-file", o.scenarioFile.path}, "--flows-out", o.out, "--topo-out", o.topoOut); err != nil {
				return err
			}
			return o.run(cmd, logger(cmd))
		},
	}
	fs := cmd.Flags()
	fs.SortFlags = false
	fs.StringVar(&o.out, "flows-out", "", "write the flow trace here (HPCC flow.txt; required)")
	addRenamed(fs, &o.out, "out", "flows-out")
	fs.StringVar(&o.topoOut, "topo-out", "", "also write the fabric here (HPCC topology.txt)")
	fs.StringVar(&o.scenario, "scenario", "", "write this eval scenario's trace (built-in, or of --scenario-file) at --seed instead of the fabric and traffic flags'")
	o.scenarioFile.add(fs, true)
	o.sc.add(fs, 0)
	return cmd
}

// run draws the trace, of --scenario or of the flags, and writes it.
func (o *genOpts) run(cmd *cobra.Command, log *slog.Logger) error {
	r, err := o.trace(cmd.Flags(), "", log)
	if err != nil {
		return err
	}
	if r.scenario && len(r.sc.Events) > 0 {
		log.Warn("the scenario's link events are not in the trace (a flow file has none): sim --flows of it runs without them; sim --scenario runs them", "scenario", r.sc.Name)
	}
	if err := writeOutput("flows-out", o.out, func(w io.Writer) error { return trace.WriteFlows(w, r.flows) }); err != nil {
		return err
	}
	if err := writeOutput("topo-out", o.topoOut, r.f.WriteTopology); err != nil {
		return err
	}
	what := r.desc
	if !r.scenario {
		what += "; " + r.gen.Describe()
	}
	log.Info("generated", "traffic", what)
	_, err = fmt.Fprintf(cmd.OutOrStdout(), "wrote %s, to %s\n", workload.DescribeTrace(r.f, r.flows, r.gen), o.out)
	return err
}
