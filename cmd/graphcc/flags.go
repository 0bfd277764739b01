package main

import (
	"fmt"
	"io"
	"os"
	"slices"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"graphcc/control"
	"graphcc/dcqcn"
	"graphcc/experiment"
	"graphcc/internal/fileio"
	"graphcc/internal/progress"
	"graphcc/internal/version"
	"graphcc/policy"
	"graphcc/replay"
	"graphcc/scenario"
	"graphcc/topo"
)

// The flag groups. Each group is defined once, with its parsing and
// checks, and added to every command that takes it with what the command
// leaves out, as cmd/go's AddBuildFlags takes Omit bits: no command
// registers a flag only to refuse or hide it.
//
//	hardware  hwFlags.add: --kmin-kb/--kmax-kb/--pmax (omitECN), the
//	          switches' and NICs' constants (omitSwitch), --dcqcn-*
//	fabric    scenarioFlags.add: --topo, the Clos, --buffer-mb, --fail*
//	          (omitFabric)
//	traffic   scenarioFlags.add: --workload, --load, --duration, the
//	          incasts (omitTraffic); --seed always
//	scenarios scenarioFileFlag.add: --scenario-file
//	outputs   outputFlags.add: --fct-out, --summary-out, --trace-out
//	agents    addInBandFlags: sim's --agent-* of --agents per-switch

// flagMask names the flags of its groups a command leaves out.
type flagMask uint

const (
	// omitECN leaves out the switches' ECN thresholds, for commands
	// whose policies set them (eval, tune, train) or that run none.
	omitECN flagMask = 1 << iota
	// omitSwitch leaves out the simulated switches' and NICs' constants
	// other than DCQCN's, for the testbed, whose switches are BMv2's.
	omitSwitch
	// omitFabric leaves out the fabric flags, for commands on a fabric
	// built already (testbed run).
	omitFabric
	// omitTraffic leaves out the traffic flags, for commands that run no
	// traffic (testbed up).
	omitTraffic
)

// addRenamed registers old, a flag's former name, as a deprecated alias
// of the string flag now bound to p: it still works, says what replaced
// it, and is left out of the help.
func addRenamed(fs *pflag.FlagSet, p *string, old, now string) {
	fs.StringVar(p, old, *p, "the old name of --"+now)
	markRenamed(fs, old, now)
}

// addRenamedInt is addRenamed for an int flag.
func addRenamedInt(fs *pflag.FlagSet, p *int, old, now string) {
	fs.IntVar(p, old, *p, "the old name of --"+now)
	markRenamed(fs, old, now)
}

// markRenamed marks the flag old deprecated in favour of now.
func markRenamed(fs *pflag.FlagSet, old, now string) {
	if err := fs.MarkDeprecated(old, "use --"+now); err != nil {
		panic(err) // a name registered twice
	}
}

// outputFlags are the files a run of sim or testbed run writes.
type outputFlags struct {
	fct, summary, trace string
}

// add registers --fct-out, --summary-out and --trace-out.
func (o *outputFlags) add(fs *pflag.FlagSet) {
	fs.StringVar(&o.fct, "fct-out", "", "write the completed flows' FCT records here (HPCC fct.txt)")
	fs.StringVar(&o.summary, "summary-out", "", "write the summary here as JSON")
	fs.StringVar(&o.trace, "trace-out", "", "write every port's telemetry and settings every --interval here as CSV (docs/formats.md)")
}

// hwFlags override the simulated hardware: the ECN thresholds, and the
// switches' and NICs' constants (replay.HardwareSettings).
type hwFlags struct {
	ecn control.ECNSettings
	replay.HardwareSettings
}

func defaultHW() hwFlags {
	return hwFlags{ecn: control.ECNSettingsOf(control.Alibaba(control.RefRate)), HardwareSettings: replay.DefaultHardwareSettings()}
}

// add registers the hardware groups into h, with h's values as defaults,
// less those mask omits: the ECN thresholds (omitECN), the switches' and
// NICs' other constants (omitSwitch); the hosts' DCQCN constants always.
func (h *hwFlags) add(fs *pflag.FlagSet, mask flagMask) {
	if mask&omitECN == 0 {
		fs.Float64Var(&h.ecn.KMinKB, "kmin-kb", h.ecn.KMinKB, "ECN kmin of a 25 Gbps switch port, KB of 1000 B; every switch port gets it scaled by its rate/25G (100 Gbps: x4)")
		fs.Float64Var(&h.ecn.KMaxKB, "kmax-kb", h.ecn.KMaxKB, "ECN kmax of a 25 Gbps switch port, KB, scaled like --kmin-kb")
		fs.Float64Var(&h.ecn.PMax, "pmax", h.ecn.PMax, "ECN marking probability at kmax, in [0, 1], on every switch port")
	}
	if mask&omitSwitch == 0 {
		fs.BoolVar(&h.NoPFC, "no-pfc", h.NoPFC, "turn PFC off (switches drop on overflow, senders go back N on NACKs)")
		fs.BoolVar(&h.NoECN, "no-ecn", h.NoECN, "turn ECN marking off at every switch")
		fs.BoolVar(&h.HPCCRoundRobin, "hpcc-rr", h.HPCCRoundRobin, "NIC round robin exactly as HPCC's: finished flows leave the list lazily and the position shifts (replay.Params.HPCCRoundRobin); =false drops a flow when it finishes and keeps the position")
		fs.BoolVar(&h.NanosecondTiming, "ns-timing", h.NanosecondTiming, "round serialization times down to whole nanoseconds, as HPCC's ns-3 does (links run up to 4.6 % above their rate); for comparing with HPCC only")
		fs.BoolVar(&h.AckHighPriority, "ack-high-prio", h.AckHighPriority, "serve ACKs and NACKs at switches before data, outside the buffer's accounting (HPCC's switch attribute AckHighPrio, which its ACK_HIGH_PRIO key does not set; the testbed does this)")
		fs.Int64Var(&h.Window, "window", h.Window, "inflight payload limit per flow, bytes: 0 = the fabric's largest base-RTT BDP, -1 = no window")
	}
	fs.Float64Var(&h.DCQCN.G, "dcqcn-g", h.DCQCN.G, "DCQCN alpha gain g, in (0, 1]")
	fs.Float64Var(&h.DCQCN.AIMbps, "dcqcn-ai-mbps", h.DCQCN.AIMbps, "DCQCN additive increase of a 25 Gbps NIC, Mbps (scaled by NIC rate/25G)")
	fs.Float64Var(&h.DCQCN.HAIMbps, "dcqcn-hai-mbps", h.DCQCN.HAIMbps, "DCQCN hyper increase of a 25 Gbps NIC, Mbps (scaled by NIC rate/25G)")
	fs.Float64Var(&h.DCQCN.MinRateMbps, "dcqcn-min-rate-mbps", h.DCQCN.MinRateMbps, "DCQCN floor of a decreased rate, Mbps")
	fs.StringVar(&h.DCQCN.RPTimer, "dcqcn-rp-timer", h.DCQCN.RPTimer, "DCQCN rate increase period (RP_TIMER, rpg_time_reset); must exceed --dcqcn-decrease-period")
	fs.StringVar(&h.DCQCN.AlphaPeriod, "dcqcn-alpha-period", h.DCQCN.AlphaPeriod, "DCQCN alpha update period (ALPHA_RESUME_INTERVAL, dce_tcp_rtt)")
	fs.StringVar(&h.DCQCN.DecreasePeriod, "dcqcn-decrease-period", h.DCQCN.DecreasePeriod, "DCQCN rate decrease check period (RATE_DECREASE_INTERVAL, rate_reduce_monitor_period)")
}

// hostSpecFlagNames are the flags of the five DCQCN constants a policy's
// +dcqcn: spec sets (policy.HostsMark), which replaces them.
func hostSpecFlagNames() []string {
	return []string{"dcqcn-rp-timer", "dcqcn-alpha-period", "dcqcn-decrease-period", "dcqcn-ai-mbps", "dcqcn-hai-mbps"}
}

// ecnFlagNames are the flags of every switch port's ECN setting.
func ecnFlagNames() []string { return []string{"kmin-kb", "kmax-kb", "pmax"} }

// ecnSettings returns the initial ECN setting of every port of f: nil (the
// simulator's default, Alibaba's thresholds) unless an ECN flag was given,
// else the flags' 25 Gbps setting scaled by each switch port's rate
// (policy.ScaledECN).
func (h *hwFlags) ecnSettings(fs *pflag.FlagSet, f *topo.Fabric) ([]control.ECN, error) {
	base, err := h.ecn.ECN("--")
	if err != nil {
		return nil, err
	}
	if !slices.ContainsFunc(ecnFlagNames(), fs.Changed) {
		return nil, nil
	}
	return policy.ScaledECN(f, base), nil
}

// checkFabric refuses DCQCN flags that fabric f's NICs cannot run
// (dcqcn.Settings.CheckLineRates).
func (h *hwFlags) checkFabric(f *topo.Fabric) error { return h.DCQCN.CheckLineRates(f, "--dcqcn-") }

// checkScenarios is checkFabric on the fabric of every scenario of scs
// (before its random failures), naming the scenario.
func (h *hwFlags) checkScenarios(scs []scenario.Scenario) error {
	for _, sc := range scs {
		f, err := sc.BaseFabric()
		if err != nil {
			return fmt.Errorf("scenario %s: %w", sc.Name, err)
		}
		if err := h.checkFabric(f); err != nil {
			return fmt.Errorf("%w (scenario %s)", err, sc.Name)
		}
	}
	return nil
}

// params returns the hardware constants of the flags
// (replay.HardwareSettings.Params), validated.
func (h *hwFlags) params() (replay.Params, error) {
	p, err := h.Params("--")
	if err != nil {
		return p, err
	}
	if err := p.Validate(); err != nil {
		return p, fmt.Errorf("DCQCN/PFC flags: %w", err)
	}
	return p, nil
}

// dcqcn sets d's constants from the DCQCN flags (dcqcn.Settings.Apply).
func (h *hwFlags) dcqcn(d *dcqcn.Params) error { return h.DCQCN.Apply(d, "--dcqcn-") }

// intervalFlag is the --interval group of sim, eval, tune and testbed
// run: the control and telemetry interval, at least control.MinInterval.
type intervalFlag string

// add registers --interval, control.DefaultInterval by default; clock, if
// not "", says whose time it is measured in.
func (i *intervalFlag) add(fs *pflag.FlagSet, clock string) {
	if *i == "" {
		*i = intervalFlag(topo.FormatDuration(control.DefaultInterval))
	}
	help := "control and telemetry interval"
	if clock != "" {
		help += ", " + clock
	}
	fs.StringVar((*string)(i), "interval", string(*i), help)
}

// parse returns the interval in ps (control.ParseInterval).
func (i intervalFlag) parse() (int64, error) { return control.ParseInterval("--interval", string(i)) }

// shardFlag is the --shard group of eval and tune: run one shard of the
// command's runs and write its part to --json, for graphcc merge.
type shardFlag struct{ spec string }

// add registers --shard; of names what is sharded.
func (s *shardFlag) add(fs *pflag.FlagSet, of string) {
	fs.StringVar(&s.spec, "shard", "", "run only shard I of N of "+of+" (I/N, I from 0; or env/N, I from $SLURM_ARRAY_TASK_ID or else $JOB_COMPLETION_INDEX) and write its part to --json, for graphcc merge (docs/scale-out.md)")
}

// given reports whether --shard was given, even empty.
func (s *shardFlag) given(fs *pflag.FlagSet) bool { return s.spec != "" || fs.Changed("shard") }

// run runs the shard of --shard and writes its part to jsonOut, the
// part's --json: runs says how many runs the shard has, part runs them,
// calling progress, and a meter named name shows how far it is.
func (s *shardFlag) run(cmd *cobra.Command, jsonOut, name string, runs func(experiment.Shard) int,
	part func(experiment.Shard, func(done, total int)) (*experiment.Part, error)) error {
	shard, err := experiment.ParseShard(s.spec, os.LookupEnv)
	if err != nil {
		return fmt.Errorf("--shard %s: %w", s.spec, err)
	}
	if jsonOut == "" {
		return fmt.Errorf("--shard %s: give --json PART.json, the file of the shard's part (graphcc merge reads the parts)", s.spec)
	}
	if err := fileio.CheckOutputs(nil, "--json", jsonOut); err != nil {
		return err
	}
	build, err := version.ID()
	if err != nil {
		return err
	}
	bar := progress.NewMeter(cmd.ErrOrStderr(), name+" "+shard.String(), "runs", runs(shard))
	p, err := part(shard, func(done, _ int) { bar.Step(done, "") })
	bar.Done()
	if err != nil {
		return err
	}
	p.Build = build
	var wrote outputs
	if err := wrote.write("json", jsonOut, func(w io.Writer) error { return experiment.WritePart(w, p) }); err != nil {
		return err
	}
	wrote.report(cmd.ErrOrStderr())
	return nil
}
