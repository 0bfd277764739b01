// Command graphcc is the graphcc command line: it generates traffic traces,
// replays them in the packet-level simulator and benchmarks the simulator.
//
// Every command is thin: it parses its flags into the library's config
// structs (topo.ClosConfig, workload.GenConfig, replay.Config, experiment.Config) and calls the
// library. Errors name the flag or file at fault; main prints them as
// "graphcc: <error>" on stderr and exits with status 1 (130 after SIGINT,
// once the command has cleaned up). Warnings and log records read
// "graphcc: warning: <message> (<key=value ...>)".
package main

// The CLI reference, docs/cli/, is generated from the command tree.
//go:generate go test -run ^TestCLIReference$ . -args -update-cli-docs

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"syscall"

	"github.com/spf13/cobra"

	"graphcc/internal/clilog"
	"graphcc/internal/version"
	"graphcc/scenario"
)

func main() {
	// A context per signal, so that the exit status can name the signal.
	intCtx, stopInt := signal.NotifyContext(context.Background(), os.Interrupt)
	ctx, stopTerm := signal.NotifyContext(intCtx, syscall.SIGTERM)
	err := newRootCmd().ExecuteContext(ctx)
	var sig syscall.Signal // before stop, which cancels the contexts too
	switch {
	case intCtx.Err() != nil:
		sig = syscall.SIGINT
	case ctx.Err() != nil:
		sig = syscall.SIGTERM
	}
	cause := context.Cause(ctx)
	stopTerm()
	stopInt()
	os.Exit(exitStatus(os.Stderr, err, sig, cause))
}

// rootOpts are the flags every command shares.
type rootOpts struct {
	logLevel string
}

// newRootCmd builds the command tree. Every flag is bound to a struct local
// to its command, so two trees never share state (the tests build one per
// case).
func newRootCmd() *cobra.Command { return newRoot(scenario.ByName) }

// lookupFunc resolves a built-in scenario name: scenario.ByName, or in
// tests a lookup that adds scenarios small enough to simulate in
// milliseconds.
type lookupFunc func(name string) (scenario.Scenario, error)

// newRoot builds the command tree with lookup as the built-in scenarios.
func newRoot(lookup lookupFunc) *cobra.Command {
	var o rootOpts
	root := &cobra.Command{
		Use:   "graphcc",
		Short: "Simulate RDMA datacenter fabrics with DCQCN, PFC and per-port ECN control",
		Long: `graphcc simulates RDMA datacenter fabrics packet by packet (HPCC's ns-3
models: DCQCN, PFC, RED/ECN marking) and controls per-port ECN settings.

By default every command uses the GraphCC setup: a 2-layer Clos of 4 leaves
with 6 hosts each and 2 spines (25 Gbps host links, 100 Gbps leaf-spine
links, 1 us per link, 32 MiB of buffer per switch) carrying FB_Hadoop at 60 %
load with a 16:1 incast every 1 ms, for 25 ms of arrivals.`,
		SilenceUsage:  true,
		SilenceErrors: true,
		PersistentPreRunE: func(cmd *cobra.Command, _ []string) error {
			if _, err := parseLogLevel(o.logLevel); err != nil {
				return err
			}
			return nil
		},
	}
	root.SetFlagErrorFunc(flagError)
	root.PersistentFlags().StringVar(&o.logLevel, "log-level", "warn", "log level on stderr: debug, info, warn or error")
	logger := func(cmd *cobra.Command) *slog.Logger {
		lvl, _ := parseLogLevel(o.logLevel) // validated in PersistentPreRunE
		return clilog.New(cmd.ErrOrStderr(), lvl)
	}
	root.AddCommand(
		newGenCmd(logger, lookup),
		newSimCmd(logger, lookup),
		newBenchCmd(logger),
		newEvalCmd(logger, lookup), newMergeCmd(logger), newTrainCmd(logger, lookup), newTuneCmd(lookup),
		newHeadroomCmd(lookup),
		newCompareCmd(logger), newSummarizeCmd(),
		newTestbedCmd(logger),
		newVersionCmd(),
	)
	return root
}

// loggerFunc returns the logger of a running command.
type loggerFunc func(*cobra.Command) *slog.Logger

func parseLogLevel(s string) (slog.Level, error) {
	var l slog.Level
	if err := l.UnmarshalText([]byte(s)); err != nil {
		return 0, fmt.Errorf("--log-level %s: want debug, info, warn or error", s)
	}
	return l, nil
}

func newVersionCmd() *cobra.Command {
	return &cobra.Command{
		Use:     "version",
		Example: `  graphcc version`,
		Short:   "Print the build's module version and Go version",
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			line := version.Line()
			_, err := fmt.Fprintln(cmd.OutOrStdout(), line)
			return err
		},
	}
}
