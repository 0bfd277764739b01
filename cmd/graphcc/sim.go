package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"slices"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"graphcc/control"
	"graphcc/gnn"
	"graphcc/internal/fileio"
	"graphcc/internal/progress"
	"graphcc/metrics"
	"graphcc/policy"
	"graphcc/replay"
	"graphcc/topo"
	"graphcc/trace"
)

// simOpts are the flags of graphcc sim.
type simOpts struct {
	traceFlags
	flowsFile string
	out       outputFlags
	ctl       policy.RunSpec // --policy, --agents, --agent-*, --interval
	until     string
	hw        hwFlags

	// runFn, set by config for --policy ideal, runs instead of the simulator.
	runFn func(context.Context, replay.Config) (*replay.Result, error)
	// phases, set by config for a phased --scenario, split the summary's
	// flows by the phase they start in.
	phases metrics.Phases
}

// agentFlagNames are the flags that only --agents per-switch takes.
func agentFlagNames() []string {
	return []string{"agent-deadline", "agent-compute", "agent-misses", "agent-loss"}
}

// addInBandFlags registers the agent flags into a, with a's values as
// defaults.
func addInBandFlags(fs *pflag.FlagSet, a *gnn.InBandSettings) {
	fs.StringVar(&a.Deadline, "agent-deadline", a.Deadline, "with --agents per-switch: each round's deadline, from the tick (round k by k × this); K × it must be under --interval")
	fs.StringVar(&a.Compute, "agent-compute", a.Compute, "with --agents per-switch: fabric time an agent takes to compute a round; 0 computes instantly")
	fs.IntVar(&a.Misses, "agent-misses", a.Misses, "with --agents per-switch: consecutive steps with a late message after which an agent puts its ports at the static settings until its messages return; 0 never")
	fs.Float64Var(&a.Loss, "agent-loss", a.Loss, "with --agents per-switch: probability that an agent message is lost, drawn from the run's seed")
}

func newSimCmd(logger loggerFunc, lookup lookupFunc) *cobra.Command {
	o := simOpts{traceFlags: traceFlags{sc: defaultScenario(), scenarioFile: scenarioFileFlag{lookup: lookup}}, hw: defaultHW(), until: "0",
		ctl: policy.RunSpec{Spec: "static", Agents: policy.AgentsCentral, InBand: gnn.DefaultInBandSettings()}}
	cmd := &cobra.Command{
		Use: "sim [flags]",
		Example: `  graphcc sim                                   # the training scenario under static DCQCN
  graphcc sim --policy graphcc --fct-out graphcc.fct --summary-out s.json
  graphcc sim --policy graphcc:bare-switch --agents per-switch   # one agent per switch, messages as packets
  graphcc sim --policy graphcc:bare-switch --agents per-switch --agent-loss 0.01 --summary-out s.json
  graphcc sim --policy graphcc:bare-switch --agents per-switch-ideal   # messages within the step: central's FCTs
  graphcc sim --topo topology.txt --flows flow.txt --policy static:2,32,0.01
  graphcc sim --scenario fail1 --seed 1001 --policy acc   # trains ACC on fail1 first
  graphcc sim --policy ideal                    # the fabric's fair share, no queues
  graphcc sim --policy tuned:tune.json          # the best fixed setting graphcc tune found
  graphcc sim --scenario fb90 --policy tuned:models/tuned   # fb90's own, models/tuned/fb90.json`,
		Short: "Simulate a scenario (default: the GraphCC training scenario) and print FCT slowdowns",
		Long: `sim replays flows on a fabric in the packet-level simulator under an ECN
policy and prints the FCT slowdown summary. The traffic is generated from
the fabric and traffic flags, read from --flows, or an eval scenario's
(--scenario). docs/cli.md describes the summary, the ECN flags and the
outputs.

Policies (--policy; --ecn is its old name):
` + policy.SpecsHelp(false),
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return o.run(cmd.Context(), cmd, logger(cmd))
		},
	}
	fs := cmd.Flags()
	fs.SortFlags = false
	o.sc.add(fs, 0)
	fs.StringVar(&o.flowsFile, "flows", "", "replay this HPCC flow.txt instead of generating traffic (the traffic flags are then ignored)")
	fs.StringVar(&o.scenario, "scenario", "", "run one seed of this eval scenario (built-in, or of --scenario-file) instead of the fabric and traffic flags: the very fabric and trace eval runs at that --seed")
	o.scenarioFile.add(fs, true)
	o.out.add(fs)
	fs.StringVar(&o.ctl.Spec, "policy", o.ctl.Spec, "the ECN control policy (see Policies below), or ideal, the fabric's max-min fair share without queues instead of the packet-level simulator")
	addRenamed(fs, &o.ctl.Spec, "ecn", "policy")
	fs.StringVar(&o.ctl.Agents, "agents", o.ctl.Agents, "how a graphcc policy's step (or a floor's over a fixed base) runs: central (one computation), per-switch (one agent per switch; hidden-state messages are packets on the links, in the priority queue, so settings take effect a few µs after the tick) or per-switch-ideal (messages delivered within the step: central's decisions at central's time); see docs/agents.md")
	addInBandFlags(fs, &o.ctl.InBand)
	o.hw.add(fs, 0)
	(*intervalFlag)(&o.ctl.Interval).add(fs, "")
	fs.StringVar(&o.until, "until", o.until, "stop this long after the first flow starts; 0 = when every flow has finished")
	return cmd
}

// config builds the simulation of the flags and describes it.
func (o *simOpts) config(ctx context.Context, fs *pflag.FlagSet, log *slog.Logger) (replay.Config, string, error) {
	var cfg replay.Config
	r, err := o.traffic(fs, log)
	if err != nil {
		return cfg, "", err
	}
	params, err := o.hw.params()
	if err != nil {
		return cfg, "", err
	}
	if err := o.hw.checkFabric(r.f); err != nil {
		return cfg, "", err
	}
	// ACC trained on the spot trains in the simulator it will run in
	rc, ecn, err := o.control(ctx, fs, r, policy.Env{Log: log, Params: params, WarnHardware: policy.HardwareAll})
	if err != nil {
		return cfg, "", err
	}
	until, err := topo.ParseDuration("--until", o.until, true)
	if err != nil {
		return cfg, "", err
	}
	events, err := r.sc.LinkEvents(r.f)
	if err != nil {
		return cfg, "", fmt.Errorf("--scenario %s, seed %d: %w", r.sc.Name, o.sc.Seed, err)
	}
	cfg = replay.Config{Fabric: r.f, Flows: r.flows, Params: params, Seed: o.sc.Seed, ECN: ecn, Policy: rc.Policy, Interval: rc.Interval,
		MessageLoss: rc.Loss, LinkEvents: events}
	cfg.QueueUntil = trace.WindowEnd(r.flows, r.gen.Duration)
	if cfg.Until = trace.WindowEnd(r.flows, until); cfg.Until == 0 && until > 0 && len(r.flows) > 0 {
		return cfg, "", fmt.Errorf("--until %s: too long", o.until)
	}
	return cfg, r.desc + "; ecn " + o.ctl.Spec, nil
}

// traffic builds the fabric and flows of the flags (traceFlags.trace)
// and describes them.
func (o *simOpts) traffic(fs *pflag.FlagSet, log *slog.Logger) (traceRun, error) {
	r, err := o.trace(fs, o.flowsFile, log)
	switch {
	case err != nil:
		return r, err
	case r.scenario:
		r.desc += fmt.Sprintf("; %d flows", len(r.flows))
		if starts := r.sc.PhaseStarts(); starts != nil {
			o.phases = metrics.Phases{Origin: r.sc.ArrivalStart(), Starts: starts}
		}
		return r, nil
	case o.flowsFile != "":
		r.desc += fmt.Sprintf("; %d flows from %s", len(r.flows), o.flowsFile)
	default:
		r.desc += fmt.Sprintf("; %d flows: %s", len(r.flows), r.gen.Describe())
	}
	r.sc.Description = r.desc
	return r, nil
}

// control returns the control of --policy on r's fabric
// (policy.RunSpec.Resolve) and the ports' starting settings (nil: the
// simulator's default), refusing agent flags without per-switch agents
// and ECN flags beside a policy that sets the thresholds or has none.
// For ideal it sets o.runFn.
func (o *simOpts) control(ctx context.Context, fs *pflag.FlagSet, r traceRun, env policy.Env) (policy.RunControl, []control.ECN, error) {
	flag, spec := "--policy", o.ctl.Spec
	if fs.Changed("ecn") {
		flag = "--ecn"
	}
	ecn, err := o.hw.ecnSettings(fs, r.f)
	if err != nil {
		return policy.RunControl{}, nil, err
	}
	for _, n := range agentFlagNames() {
		if o.ctl.Agents != policy.AgentsPerSwitch && fs.Changed(n) {
			return policy.RunControl{}, nil, fmt.Errorf("--%s needs --agents %s", n, policy.AgentsPerSwitch)
		}
	}
	rc, err := o.ctl.Resolve(ctx, flag, env, r.f, r.sc, o.sc.Seed, "--")
	switch {
	case err != nil:
		return rc, nil, err
	case rc.Run != nil && ecn != nil:
		return rc, nil, fmt.Errorf("%s %s has no ECN thresholds: drop --kmin-kb, --kmax-kb and --pmax", flag, spec)
	case rc.Run != nil && o.out.trace != "":
		return rc, nil, fmt.Errorf("%s %s has no per-port telemetry: drop --trace-out", flag, spec)
	case rc.Run != nil:
		o.runFn = rc.Run
		return rc, nil, nil
	}
	if _, ok := control.HostParamsOf(rc.Policy); ok && env.Log != nil {
		// the spec's constants replace the hardware's, as in eval and tune
		if given := slices.DeleteFunc(hostSpecFlagNames(), func(n string) bool { return !fs.Changed(n) }); len(given) > 0 {
			env.Log.Info("the policy's hosts' DCQCN constants replace those of the flags", "policy", spec, "flags", given)
		}
	}
	if rc.ECN == nil {
		return rc, ecn, nil
	}
	if ecn != nil {
		return rc, nil, fmt.Errorf("%s %s sets the ECN thresholds: drop --kmin-kb, --kmax-kb and --pmax", flag, spec)
	}
	return rc, rc.ECN, nil
}

func (o *simOpts) run(ctx context.Context, cmd *cobra.Command, log *slog.Logger) error {
	if err := fileio.CheckOutputs([]string{"--topo", o.sc.Topology, "--flows", o.flowsFile}, "--fct-out", o.out.fct, "--summary-out", o.out.summary, "--trace-out", o.out.trace); err != nil {
		return err
	}
	cfg, desc, err := o.config(ctx, cmd.Flags(), log)
	if err != nil {
		return err
	}
	log.Info("simulating", "scenario", desc)

	var (
		res    *replay.Result
		simErr error
	)
	runIt := func(telemetry io.Writer) error {
		cfg.Trace = telemetry
		bar := progress.NewSim(cmd.ErrOrStderr(), len(cfg.Flows), trace.FirstStart(cfg.Flows))
		cfg.Progress = bar.Callback()
		run := replay.RunContext // stops early with an error when ctx is cancelled (Ctrl-C)
		if o.runFn != nil {
			run = o.runFn
		}
		res, simErr = run(ctx, cfg)
		if simErr != nil {
			bar.Done(false, 0, 0)
		} else {
			bar.Done(true, res.End, res.Summary.Completed)
		}
		return simErr
	}
	var wrote outputs
	if o.out.trace != "" {
		// The trace streams out during the run into a temporary file that
		// replaces --trace-out only if the run succeeds.
		err = wrote.write("trace-out", o.out.trace, runIt)
	} else {
		err = runIt(nil)
	}
	if simErr != nil {
		return simErr // not a --trace-out problem
	}
	if res != nil {
		for _, w := range res.Warnings {
			log.Warn(w)
		}
	}
	if err != nil {
		return err
	}
	res.Summary.Phases = metrics.SlowdownByPhase(res.FCT, o.phases)
	if err := wrote.write("fct-out", o.out.fct, func(w io.Writer) error { return trace.WriteFCT(w, res.FCT) }); err != nil {
		return err
	}
	if err := wrote.write("summary-out", o.out.summary, func(w io.Writer) error { return fileio.WriteJSON(w, res.Summary) }); err != nil {
		return err
	}
	if err := res.WriteText(cmd.OutOrStdout(), desc, len(cfg.LinkEvents)); err != nil {
		return err
	}
	wrote.report(cmd.ErrOrStderr())
	return nil
}

// readFlows reads --flows, the flow file at path, for fabric f.
func readFlows(path string, f *topo.Fabric) ([]trace.Flow, error) {
	flows, err := trace.LoadFlows(path, f)
	if err != nil {
		return nil, fmt.Errorf("--flows: %w", err)
	}
	return flows, nil
}
