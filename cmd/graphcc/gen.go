package main

import (
	"errors"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"graphcc/topo"
	"graphcc/trace"
	"graphcc/workload"
)

// genOpts are the flags of graphcc gen.
type genOpts struct {
	sc      scenarioFlags
	out     string
	topoOut string
}

func newGenCmd(logger loggerFunc) *cobra.Command {
	o := genOpts{sc: defaultScenario()}
	cmd := &cobra.Command{
		Use: "gen --out FILE [flags]",
		Example: `  graphcc gen --out flow.txt --topo-out topology.txt   # the training scenario's traffic, seed 1
  graphcc gen --out ws.txt --workload websearch --load 0.8 --no-incast --seed 7`,
		Short: "Generate a flow trace (HPCC flow.txt) for a scenario",
		Long: `gen draws a traffic trace for the fabric: Poisson arrivals of flows whose
sizes follow --workload at --load of every host link for --duration, plus
periodic N:1 incasts, all from --seed, and writes it atomically to --out in
HPCC's flow.txt format (arrivals start at 2 s, HPCC's convention). It prints
one line: the flows, their bytes and the load they offer.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if o.out == "" {
				return errors.New("--out: required") // as train's, for an explicit --out ''
			}
			if err := checkOutputsReading([]string{"--topo", o.sc.topoFile}, "out", o.out, "topo-out", o.topoOut); err != nil {
				return err
			}
			log := logger(cmd)
			f, err := o.sc.fabric(cmd.Flags(), log)
			if err != nil {
				return err
			}
			flows, g, err := o.sc.generate(f, cmd.Flags())
			if err != nil {
				return err
			}
			if err := writeOutput("out", o.out, func(w io.Writer) error { return trace.WriteFlows(w, flows) }); err != nil {
				return err
			}
			if o.topoOut != "" {
				if err := writeOutput("topo-out", o.topoOut, f.WriteTopology); err != nil {
					return err
				}
			}
			log.Info("generated", "fabric", o.sc.describeFabric(f), "traffic", o.sc.describeTraffic(g))
			_, err = fmt.Fprintln(cmd.OutOrStdout(), genSummary(f, flows, g, o.out))
			return err
		},
	}
	fs := cmd.Flags()
	fs.SortFlags = false
	fs.StringVar(&o.out, "out", "", "write the flow trace here (HPCC flow.txt; required)")
	fs.StringVar(&o.topoOut, "topo-out", "", "also write the fabric here (HPCC topology.txt)")
	o.sc.addFabricFlags(fs)
	o.sc.addTrafficFlags(fs)
	o.sc.addSeedFlag(fs)
	cmd.MarkFlagRequired("out")
	return cmd
}

// genSummary is gen's one line: flows, bytes and the offered load
// (workload.OfferedLoad).
func genSummary(f *topo.Fabric, flows []trace.Flow, g workload.GenConfig, out string) string {
	load, bytes, incast := workload.OfferedLoad(f, flows, g.Duration)
	return fmt.Sprintf("wrote %d flows (%d incast), %d bytes, offered load %.1f%% of %d hosts' links over %s, to %s",
		len(flows), incast, bytes, 100*load, len(f.Hosts()), topo.FormatDuration(g.Duration), out)
}
