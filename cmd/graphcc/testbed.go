package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"graphcc/control"
	"graphcc/controller"
	"graphcc/controller/lab"
	"graphcc/controller/testbed"
	"graphcc/experiment"
	"graphcc/policy"
	"graphcc/topo"
)

// The testbed commands: up, run, down and status of a lab of BMv2 switches
// in network namespaces. Their work is package controller/testbed's; the
// lab directory keeps what later commands need (its state, spec and last
// control step).

// defaultTestbedDuration is run's default arrival window: 5 ms of fabric
// time, 5 s of real time at the default scale.
const defaultTestbedDuration = 5 * topo.Millisecond

func newTestbedCmd(logger loggerFunc) *cobra.Command {
	cmd := &cobra.Command{
		Use: "testbed",
		Example: `  sudo graphcc testbed up --scale 40000
  sudo graphcc testbed run --policies static,graphcc --compare-sim
  graphcc testbed status
  sudo graphcc testbed down`,
		Short: "Run the hardware-in-the-loop testbed: BMv2 switches in network namespaces, live ECN policies",
		Long: `testbed builds a fabric of BMv2 switches in network namespaces, programs them
over P4Runtime and runs traffic on it while an ECN policy sets every port's
thresholds every control interval, as in the simulator. Needs root and BMv2;
docs/testbed.md describes it.`,
	}
	cmd.AddCommand(newTestbedUpCmd(logger), newTestbedRunCmd(logger), newTestbedDownCmd(logger), newTestbedStatusCmd(),
		newTestbedAgentCmd(logger))
	return cmd
}

// addLabFlags registers --lab and --dir, the flags naming a lab.
func addLabFlags(fs *pflag.FlagSet, name, dir *string) {
	fs.StringVar(name, "lab", lab.DefaultName, "lab name: prefixes its namespaces")
	fs.StringVar(dir, "dir", "", "lab directory (state, switch logs); default "+lab.DefaultRunDir+"/LAB")
}

// addPipelineFlags registers the flags that locate the compiled P4
// program: by default the one built into the binary (p4src), else files
// from make p4.
func addPipelineFlags(fs *pflag.FlagSet, p *testbed.Pipeline) {
	fs.StringVar(&p.JSON, "p4-json", "", "BMv2 JSON of graphcc.p4 (make p4); default the one built in")
	fs.StringVar(&p.P4Info, "p4info", "", "P4Info of graphcc.p4, text format (make p4); default the one built in")
}

type testbedUpOpts struct {
	sc scenarioFlags
	c  testbed.UpConfig
}

func newTestbedUpCmd(logger loggerFunc) *cobra.Command {
	o := testbedUpOpts{sc: defaultScenario(), c: testbed.UpConfig{Scale: lab.DefaultScale}}
	cmd := &cobra.Command{
		Use: "up [flags]",
		Example: `  sudo graphcc testbed up                          # the GraphCC Clos at the default scale
  sudo graphcc testbed up --hosts-per-leaf 2 --scale 40000 --lab small
  sudo graphcc testbed up --scale 40000 --realtime 10   # every switch thread at SCHED_FIFO 10 (docs/testbed.md)`,
		Short: "Build a lab: namespaces, veth links, BMv2 switches, the P4 pipeline, forwarding and static ECN settings",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return o.run(cmd.Context(), cmd, logger(cmd))
		},
	}
	fs := cmd.Flags()
	fs.SortFlags = false
	addLabFlags(fs, &o.c.Lab, &o.c.Dir)
	o.sc.add(fs, omitTraffic)
	fs.Int64Var(&o.c.Scale, "scale", o.c.Scale, "divide every link rate, and multiply every time, by this factor")
	addPipelineFlags(fs, &o.c.Pipeline)
	fs.BoolVar(&o.c.NoSwitches, "no-switches", false, "build namespaces, links and addresses only (no BMv2)")
	fs.StringVar(&o.c.SwitchLogLevel, "switch-log-level", "", "BMv2 log level (trace, debug, info, warn, error) into DIR/SWITCH.log; default off (BMv2 is much slower when it logs)")
	fs.IntVar(&o.c.Realtime, "realtime", 0, "run every switch thread at this SCHED_FIFO priority (1-99, as chrt -f; needs root), recorded in the lab and set again by testbed run; 0: normal scheduling (docs/testbed.md)")
	return cmd
}

func (o *testbedUpOpts) run(ctx context.Context, cmd *cobra.Command, log *slog.Logger) error {
	start := time.Now()
	c := o.c
	c.Log = log
	if err := c.Check(); err != nil {
		return err
	}
	o.sc.warnIgnored(cmd.Flags(), log)
	if err := c.SetFabric(o.sc.Settings, "--"); err != nil {
		return err
	}
	lb, err := testbed.Up(ctx, c)
	if err != nil {
		return err
	}
	return c.WriteUp(cmd.OutOrStdout(), lb.Name(), lb.Dir(), time.Since(start))
}

type testbedRunOpts struct {
	lab, dir string
	pipe     testbed.Pipeline
	sc       scenarioFlags
	policies []string
	ecn      string // the deprecated --ecn
	out      outputFlags
	interval intervalFlag
	drain    string
	hw       hwFlags // the hosts' DCQCN constants (--dcqcn-*) alone
	c        testbed.RunConfig
}

func newTestbedRunCmd(logger loggerFunc) *cobra.Command {
	o := testbedRunOpts{sc: defaultScenario(), policies: []string{"static"}, drain: "20ms",
		c: testbed.RunConfig{Agents: testbed.AgentsConfig{Mode: controller.AgentsCentral, MissLimit: control.DefaultMissLimit}}, hw: defaultHW()}
	o.sc.Gen.Duration = topo.FormatDuration(defaultTestbedDuration)
	cmd := &cobra.Command{
		Use: "run [flags]",
		Example: `  sudo graphcc testbed run --policies static,graphcc --compare-sim --summary-out s.json
  sudo graphcc testbed run --lab small --duration 2ms   # a small lab fits its incast to its hosts
  sudo graphcc testbed run --policies graphcc --agents per-switch   # one agent process per switch, messages in-band`,
		Short: "Run a workload on a live lab under one or more ECN policies and print FCT slowdowns",
		Long: `run drives a workload from the simulator's generator on the lab's hosts under
each policy of --policies in turn, on the same trace, and prints each
policy's summary and, for several, their comparison. With several policies
every output file gets the policy's name before its extension.
docs/cli.md and docs/testbed.md have the details.

Policies (--policies, comma-separated or repeated; --ecn is its old name):
` + policy.SpecsHelp(true),
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return o.run(cmd.Context(), cmd, logger(cmd))
		},
	}
	fs := cmd.Flags()
	fs.SortFlags = false
	addLabFlags(fs, &o.lab, &o.dir)
	fs.StringArrayVar(&o.policies, "policies", o.policies, "ECN policies, comma-separated or repeated: static, static:KMIN_KB,KMAX_KB,PMAX, edge:…, react:…, sched:…, tuned:FILE, graphcc[:FILE], acc:FILE, acc (trained first in the simulator, ACKs first, on the run's scenario); see Policies below")
	fs.StringVar(&o.ecn, "ecn", "", "the old name of --policies")
	if err := fs.MarkDeprecated("ecn", "use --policies"); err != nil {
		panic(err)
	}
	o.sc.add(fs, omitFabric)
	fs.StringVar(&o.c.FlowsFile, "flows", "", "replay this HPCC flow.txt instead of generating traffic (the traffic flags are then ignored)")
	o.interval.add(fs, "fabric time")
	fs.StringVar(&o.drain, "drain", o.drain, "stop this long (fabric time) after the last flow starts, finished or not")
	o.hw.add(fs, omitECN|omitSwitch)
	fs.BoolVar(&o.c.CompareSim, "compare-sim", false, "also run every policy on the same fabric and trace in the simulator, serving ACKs first as the testbed's switches do (--ack-high-prio), and print its figures beside the testbed's")
	fs.StringVar(&o.c.Agents.Mode, "agents", o.c.Agents.Mode, "how a graphcc policy's step (or a floor's over a fixed base) runs: central (this process reads, decides and writes every switch) or per-switch (one agent process per switch, hidden states exchanged in-band, the central step run as a shadow that counts decision_mismatches; docs/agents.md)")
	fs.DurationVar(&o.c.Agents.RoundTimeout, "agent-round-timeout", 0, "with --agents per-switch: round k of a step ends k times this (real time) after the step is due, and the neighbours' messages missing then are replaced by the fallback (0: a quarter of the real control interval over K)")
	fs.IntVar(&o.c.Agents.MissLimit, "agent-misses", o.c.Agents.MissLimit, "with --agents per-switch: steps in a row with a message late after which an agent holds its ports on the static settings until its messages return; 0 never (as sim's --agent-misses)")
	addRenamedInt(fs, &o.c.Agents.MissLimit, "agent-miss-limit", "agent-misses")
	fs.BoolVar(&o.c.NoDelays, "no-link-delays", false, "do not emulate the links' propagation delays at the hosts (by default a host handles each frame one path delay after it arrives)")
	o.out.add(fs)
	addPipelineFlags(fs, &o.pipe)
	return cmd
}

// setPolicies sets the run's policies from --policies or from the
// deprecated --ecn (testbed.RunConfig.SetPolicies).
func (o *testbedRunOpts) setPolicies(fs *pflag.FlagSet) error {
	if !fs.Changed("ecn") {
		return o.c.SetPolicies("--policies", o.policies)
	}
	if fs.Changed("policies") {
		return errors.New("--ecn and --policies: choose one (--ecn is the old name of --policies)")
	}
	return o.c.SetPolicies("--ecn", []string{o.ecn})
}

func (o *testbedRunOpts) run(ctx context.Context, cmd *cobra.Command, log *slog.Logger) error {
	c, fs := &o.c, cmd.Flags()
	err := o.setPolicies(fs)
	if err != nil {
		return err
	}
	c.Outputs = testbed.Outputs{Summary: o.out.summary, FCT: o.out.fct, Trace: o.out.trace}
	if err := c.CheckOutputs(); err != nil {
		return err
	}
	if c.Interval, err = o.interval.parse(); err != nil {
		return err
	}
	c.Params = experiment.TestbedParams()
	if err := o.hw.dcqcn(&c.Params.DCQCN); err != nil {
		return err
	}
	if c.Drain, err = topo.ParseDuration("--drain", o.drain, false); err != nil {
		return err
	}
	s, err := testbed.Open(o.lab, o.dir, o.pipe)
	if err != nil {
		return err
	}
	if err := o.hw.checkFabric(s.Plan.Fabric); err != nil {
		return err
	}
	if err := o.sc.checkIncast(fs); err != nil {
		return err
	}
	if c.Scenario, c.Flows, err = s.Traffic(o.sc.Settings, c.FlowsFile, fs.Changed("incast-fanin"), log); err != nil {
		return err
	}
	c.Seed, c.Out, c.Log = o.sc.Seed, cmd.OutOrStdout(), log
	res, err := s.Run(ctx, *c)
	if res != nil {
		(&outputs{paths: res.Wrote}).report(cmd.ErrOrStderr())
	}
	return err
}

func newTestbedDownCmd(logger loggerFunc) *cobra.Command {
	var name, dir string
	cmd := &cobra.Command{
		Use: "down [flags]",
		Example: `  sudo graphcc testbed down
  sudo graphcc testbed down --lab small`,
		Short: "Remove every namespace, link and switch process of a lab (also after a crash; running it twice is harmless)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			start := time.Now()
			ctx, cancel := context.WithTimeout(context.WithoutCancel(cmd.Context()), time.Minute)
			defer cancel()
			if err := testbed.Down(ctx, name, dir, logger(cmd)); err != nil {
				return err
			}
			fmt.Fprintf(cmd.OutOrStdout(), "lab %s down in %.1f s\n", name, time.Since(start).Seconds())
			return nil
		},
	}
	addLabFlags(cmd.Flags(), &name, &dir)
	return cmd
}

func newTestbedStatusCmd() *cobra.Command {
	var name, dir string
	cmd := &cobra.Command{
		Use: "status [flags]",
		Example: `  graphcc testbed status
  graphcc testbed status --lab small`,
		Short: "Show a lab's switches, ports, current ECN settings and last telemetry",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return testbed.WriteStatus(cmd.OutOrStdout(), name, dir)
		},
	}
	addLabFlags(cmd.Flags(), &name, &dir)
	return cmd
}

// newTestbedAgentCmd is the per-switch agent process of testbed run
// --agents per-switch (docs/agents.md; testbed.RunAgent), which run
// starts once per switch.
func newTestbedAgentCmd(logger loggerFunc) *cobra.Command {
	c := testbed.AgentConfig{Election: testbed.AgentElectionID, MissLimit: control.DefaultMissLimit}
	cmd := &cobra.Command{
		Use:     "agent [flags]",
		Example: `  graphcc testbed agent --lab tba --switch leaf0 --model agent-model.json --clock-start 1796000000000000000 --clock-scale 10000 --epoch-ps 0 --interval-ps 100000000`,
		Short:   "Run one switch's GraphCC agent (testbed run --agents per-switch starts one per switch)",
		Long: `agent is one switch's GraphCC agent on a live lab (docs/agents.md): testbed run
--agents per-switch starts one per switch; it is not meant to be run by hand.`,
		Hidden: true,
		Args:   cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx, stop := signal.NotifyContext(cmd.Context(), syscall.SIGTERM, os.Interrupt)
			defer stop()
			c.Out, c.Log = cmd.OutOrStdout(), logger(cmd)
			return testbed.RunAgent(ctx, c)
		},
	}
	addAgentFlags(cmd.Flags(), &c)
	return cmd
}

// addAgentFlags registers the agent command's flags into c, with c's
// values as defaults (testbed.AgentConfig.Args gives them).
func addAgentFlags(fs *pflag.FlagSet, c *testbed.AgentConfig) {
	fs.SortFlags = false
	addLabFlags(fs, &c.Lab, &c.Dir)
	fs.StringVar(&c.Switch, "switch", "", "the switch, by name (leaf0, spine1, …)")
	fs.StringVar(&c.Model, "model", "", "GraphCC model file; default the one built in")
	fs.StringVar(&c.Floor, "floor", "", "a floored policy's floor file (testbed run writes it): the gates and the base the agent holds its ports and hosts to")
	fs.Int64Var(&c.ClockStart, "clock-start", 0, "the real instant of fabric time 0, Unix nanoseconds")
	fs.Float64Var(&c.ClockScale, "clock-scale", 0, "real time per fabric time (the lab's scale)")
	fs.Int64Var(&c.Epoch, "epoch-ps", 0, "fabric time, ps, of the steps' origin: step j is due at epoch + (j+1) x interval")
	fs.Int64Var(&c.Interval, "interval-ps", 0, "control interval, fabric ps")
	fs.DurationVar(&c.RoundTimeout, "round-timeout", 0, "round k of a step ends k times this (real time) after the step is due; messages missing then are replaced by the fallback (0: a quarter of the real interval over K)")
	fs.IntVar(&c.MissLimit, "miss-limit", c.MissLimit, "steps in a row with a message late after which the switch's ports go on the static settings until its messages return; 0 never")
	fs.Uint64Var(&c.Election, "election-id", c.Election, "P4Runtime election id (above the controller's)")
	fs.Float64Var(&c.QueueScale, "queue-scale", 0, "the features' queue scale, bytes at the reference rate (gnn.FeatureConfig; 0: the default)")
	addPipelineFlags(fs, &c.Pipeline)
}
