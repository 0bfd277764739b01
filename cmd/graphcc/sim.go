package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math"
	"os"
	"slices"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"graphcc/control"
	"graphcc/dcqcn"
	"graphcc/gnn"
	"graphcc/internal/fileio"
	"graphcc/metrics"
	"graphcc/policy"
	"graphcc/replay"
	"graphcc/scenario"
	"graphcc/topo"
	"graphcc/trace"
	"graphcc/workload"
)

// simOpts are the flags of graphcc sim.
type simOpts struct {
	sc           scenarioFlags
	scenario     string
	scenarioFile scenarioFileFlag
	flowsFile    string
	fctOut       string
	summaryOut   string
	traceOut     string
	policy       string
	agents       string
	agentFlags   agentFlags
	interval     string
	until        string
	hw           hwFlags

	// runFn, set by config for --policy ideal, runs instead of the simulator.
	runFn func(context.Context, replay.Config) (*replay.Result, error)
	// phases, set by config for a phased --scenario, split the summary's
	// flows by the phase they start in.
	phases metrics.Phases
}

// agentFlags configure the per-switch agents whose messages are packets
// (--agents per-switch).
type agentFlags struct {
	deadline string
	compute  string
	misses   int
	loss     float64
}

// agentFlagNames are the flags that only --agents per-switch takes.
func agentFlagNames() []string {
	return []string{"agent-deadline", "agent-compute", "agent-misses", "agent-loss"}
}

// config checks the agent flags against the control interval and returns
// the agents' configuration.
func (a agentFlags) config(fs *pflag.FlagSet, agents string) (gnn.InBandConfig, error) {
	if agents != policy.AgentsPerSwitch {
		for _, n := range agentFlagNames() {
			if fs.Changed(n) {
				return gnn.InBandConfig{}, fmt.Errorf("--%s needs --agents %s", n, policy.AgentsPerSwitch)
			}
		}
		return gnn.InBandConfig{}, nil
	}
	d, err := parseDurationFlag("agent-deadline", a.deadline, false)
	if err != nil {
		return gnn.InBandConfig{}, err
	}
	c, err := parseDurationFlag("agent-compute", a.compute, true)
	if err != nil {
		return gnn.InBandConfig{}, err
	}
	if a.misses < 0 {
		return gnn.InBandConfig{}, fmt.Errorf("--agent-misses %d: must not be negative (0 never reverts to the static settings)", a.misses)
	}
	if !(a.loss >= 0 && a.loss < 1) {
		return gnn.InBandConfig{}, fmt.Errorf("--agent-loss %g: must be in [0, 1)", a.loss)
	}
	misses := a.misses
	if misses == 0 {
		misses = -1
	}
	return gnn.InBandConfig{Deadline: d, Compute: c, Misses: misses}, nil
}

// hwFlags override the simulated hardware: ECN thresholds, PFC, the window
// and DCQCN's constants.
type hwFlags struct {
	kminKB, kmaxKB, pmax float64
	noPFC, noECN         bool
	window               int64
	g                    float64
	aiMbps, haiMbps      float64
	minRateMbps          float64
	rpTimer              string
	alphaPeriod          string
	decreasePeriod       string
	ackHighPrio          bool
	hpccRR               bool
	nsTiming             bool
}

func defaultHW() hwFlags {
	a := control.Alibaba(control.RefRate)
	d := replay.DefaultParams().DCQCN
	return hwFlags{
		kminKB:         float64(a.KMin) / control.KB,
		kmaxKB:         float64(a.KMax) / control.KB,
		pmax:           a.PMax,
		g:              d.G,
		aiMbps:         float64(d.AI) / float64(topo.Mbps),
		haiMbps:        float64(d.HAI) / float64(topo.Mbps),
		minRateMbps:    float64(d.MinRate) / float64(topo.Mbps),
		rpTimer:        topo.FormatDuration(d.IncreaseInterval),
		alphaPeriod:    topo.FormatDuration(d.AlphaInterval),
		decreasePeriod: topo.FormatDuration(d.DecreaseInterval),
	}
}

func (h *hwFlags) addFlags(fs *pflag.FlagSet) {
	fs.Float64Var(&h.kminKB, "kmin-kb", h.kminKB, "ECN kmin of a 25 Gbps switch port, KB of 1000 B; every switch port gets it scaled by its rate/25G (100 Gbps: x4)")
	fs.Float64Var(&h.kmaxKB, "kmax-kb", h.kmaxKB, "ECN kmax of a 25 Gbps switch port, KB, scaled like --kmin-kb")
	fs.Float64Var(&h.pmax, "pmax", h.pmax, "ECN marking probability at kmax, in [0, 1], on every switch port")
	fs.BoolVar(&h.noPFC, "no-pfc", false, "turn PFC off (switches drop on overflow, senders go back N on NACKs)")
	fs.BoolVar(&h.noECN, "no-ecn", false, "turn ECN marking off at every switch")
	fs.BoolVar(&h.hpccRR, "hpcc-rr", true, "NIC round robin exactly as HPCC's: finished flows leave the list lazily and the position shifts (replay.Params.HPCCRoundRobin); =false drops a flow when it finishes and keeps the position")
	fs.BoolVar(&h.nsTiming, "ns-timing", false, "round serialization times down to whole nanoseconds, as HPCC's ns-3 does (links run up to 4.6 % above their rate); for comparing with HPCC only")
	fs.BoolVar(&h.ackHighPrio, "ack-high-prio", false, "serve ACKs and NACKs at switches before data, outside the buffer's accounting (HPCC's switch attribute AckHighPrio, which its ACK_HIGH_PRIO key does not set; the testbed does this)")
	fs.Int64Var(&h.window, "window", 0, "inflight payload limit per flow, bytes: 0 = the fabric's largest base-RTT BDP, -1 = no window")
	h.addDCQCNFlags(fs)
}

// addDCQCNFlags defines the flags of the hosts' DCQCN constants on fs
// (the testbed's hosts take these alone of the hardware flags).
func (h *hwFlags) addDCQCNFlags(fs *pflag.FlagSet) {
	fs.Float64Var(&h.g, "dcqcn-g", h.g, "DCQCN alpha gain g, in (0, 1]")
	fs.Float64Var(&h.aiMbps, "dcqcn-ai-mbps", h.aiMbps, "DCQCN additive increase of a 25 Gbps NIC, Mbps (scaled by NIC rate/25G)")
	fs.Float64Var(&h.haiMbps, "dcqcn-hai-mbps", h.haiMbps, "DCQCN hyper increase of a 25 Gbps NIC, Mbps (scaled by NIC rate/25G)")
	fs.Float64Var(&h.minRateMbps, "dcqcn-min-rate-mbps", h.minRateMbps, "DCQCN floor of a decreased rate, Mbps")
	fs.StringVar(&h.rpTimer, "dcqcn-rp-timer", h.rpTimer, "DCQCN rate increase period (RP_TIMER, rpg_time_reset); must exceed --dcqcn-decrease-period")
	fs.StringVar(&h.alphaPeriod, "dcqcn-alpha-period", h.alphaPeriod, "DCQCN alpha update period (ALPHA_RESUME_INTERVAL, dce_tcp_rtt)")
	fs.StringVar(&h.decreasePeriod, "dcqcn-decrease-period", h.decreasePeriod, "DCQCN rate decrease check period (RATE_DECREASE_INTERVAL, rate_reduce_monitor_period)")
}

// hostSpecFlagNames are the flags of the five DCQCN constants a policy's
// +dcqcn: spec sets (policy.HostsMark), which replaces them.
func hostSpecFlagNames() []string {
	return []string{"dcqcn-rp-timer", "dcqcn-alpha-period", "dcqcn-decrease-period", "dcqcn-ai-mbps", "dcqcn-hai-mbps"}
}

// refuseECNFlags fails if one of the ECN threshold flags was given to a
// command whose policies set the thresholds themselves; why says so.
func refuseECNFlags(fs *pflag.FlagSet, why string) error {
	for _, n := range ecnFlagNames() {
		if fs.Changed(n) {
			return fmt.Errorf("--%s: %s", n, why)
		}
	}
	return nil
}

// ecnFlagNames are the flags of every switch port's ECN setting.
func ecnFlagNames() []string { return []string{"kmin-kb", "kmax-kb", "pmax"} }

// hideECNFlags keeps the ECN flags out of the --help of a command that
// refuses them (refuseECNFlags).
func hideECNFlags(fs *pflag.FlagSet) {
	for _, n := range ecnFlagNames() {
		if err := fs.MarkHidden(n); err != nil {
			panic(err) // a flag renamed without this list
		}
	}
}

// baseECN is the 25 Gbps setting of the flags.
func (h *hwFlags) baseECN() (control.ECN, error) {
	e := control.ECN{
		KMin: int64(math.Round(h.kminKB * control.KB)),
		KMax: int64(math.Round(h.kmaxKB * control.KB)),
		PMax: h.pmax,
	}
	for _, v := range []struct {
		name string
		kb   float64
	}{{"kmin-kb", h.kminKB}, {"kmax-kb", h.kmaxKB}} {
		if !(v.kb >= 0 && v.kb <= 1e9) {
			return e, fmt.Errorf("--%s %v: must be a number of KB in [0, 1e9]", v.name, v.kb)
		}
	}
	if err := e.Validate(); err != nil {
		return e, fmt.Errorf("--kmin-kb %g --kmax-kb %g --pmax %g: %w", h.kminKB, h.kmaxKB, h.pmax, err)
	}
	return e, nil
}

// ecnSettings returns the initial ECN setting of every port of f: nil (the
// simulator's default, Alibaba's thresholds) unless an ECN flag was given,
// else the flags' 25 Gbps setting scaled by each switch port's rate
// (policy.ScaledECN).
func (h *hwFlags) ecnSettings(fs *pflag.FlagSet, f *topo.Fabric) ([]control.ECN, error) {
	base, err := h.baseECN()
	if err != nil {
		return nil, err
	}
	if !slices.ContainsFunc(ecnFlagNames(), fs.Changed) {
		return nil, nil
	}
	return policy.ScaledECN(f, base), nil
}

// checkFabric refuses hardware constants p that fabric f cannot run: a
// DCQCN floor above some host's line rate, which would pace that host faster
// than its link.
func (h *hwFlags) checkFabric(p replay.Params, f *topo.Fabric) error {
	for _, n := range f.Hosts() {
		if rate := f.Ports[f.HostPort(n)].Rate; p.DCQCN.MinRate > rate {
			return fmt.Errorf("--dcqcn-min-rate-mbps %v: above host %s's line rate %s", h.minRateMbps, f.Nodes[n].Name, topo.FormatRate(rate))
		}
	}
	return nil
}

// params returns the hardware constants of the flags.
func (h *hwFlags) params() (replay.Params, error) {
	p := replay.DefaultParams()
	p.PFC = !h.noPFC
	p.ECN = !h.noECN
	p.AckHighPriority = h.ackHighPrio
	p.HPCCRoundRobin = h.hpccRR
	p.NanosecondTiming = h.nsTiming
	if h.window < -1 {
		return p, fmt.Errorf("--window %d: want a byte count, 0 (the largest BDP) or -1 (no window)", h.window)
	}
	p.Window = h.window
	if err := h.dcqcn(&p.DCQCN); err != nil {
		return p, err
	}
	if err := p.Validate(); err != nil {
		return p, fmt.Errorf("DCQCN/PFC flags: %w", err)
	}
	return p, nil
}

// dcqcn sets d's constants from the DCQCN flags: the alpha gain, AI, HAI
// and the minimum rate of a 25 Gbps NIC, and the three periods.
func (h *hwFlags) dcqcn(d *dcqcn.Params) error {
	if !(h.g > 0 && h.g <= 1) {
		return fmt.Errorf("--dcqcn-g %v: must be in (0, 1]", h.g)
	}
	d.G = h.g
	mbps := func(name string, v float64) (int64, error) {
		if !(v >= 0) || v > math.MaxInt64/float64(topo.Mbps)/2 {
			return 0, fmt.Errorf("--%s %v: must be a non-negative rate", name, v)
		}
		return int64(math.Round(v * float64(topo.Mbps))), nil
	}
	var err error
	if d.AI, err = mbps("dcqcn-ai-mbps", h.aiMbps); err != nil {
		return err
	}
	if d.HAI, err = mbps("dcqcn-hai-mbps", h.haiMbps); err != nil {
		return err
	}
	if d.MinRate, err = mbps("dcqcn-min-rate-mbps", h.minRateMbps); err != nil {
		return err
	}
	return h.dcqcnPeriods(d)
}

// dcqcnPeriods sets d's three periods from the flags: the alpha update
// and decrease check periods, and the rate-increase timer, which must
// exceed the decrease check and its first delay (dcqcn.Params.Validate).
func (h *hwFlags) dcqcnPeriods(d *dcqcn.Params) error {
	var err error
	if d.AlphaInterval, err = parseDurationFlag("dcqcn-alpha-period", h.alphaPeriod, false); err != nil {
		return err
	}
	if d.DecreaseInterval, err = parseDurationFlag("dcqcn-decrease-period", h.decreasePeriod, false); err != nil {
		return err
	}
	if d.DecreaseInterval > math.MaxInt64/4-d.FirstDecreaseDelay {
		return fmt.Errorf("--dcqcn-decrease-period %s: too long", h.decreasePeriod)
	}
	if d.IncreaseInterval, err = parseDurationFlag("dcqcn-rp-timer", h.rpTimer, false); err != nil {
		return err
	}
	if min := d.DecreaseInterval + d.FirstDecreaseDelay; d.IncreaseInterval <= min {
		return fmt.Errorf("--dcqcn-rp-timer %s: must exceed --dcqcn-decrease-period %s plus the first check's delay (%s)",
			h.rpTimer, h.decreasePeriod, topo.FormatDuration(min))
	}
	return nil
}

func newSimCmd(logger loggerFunc, lookup lookupFunc) *cobra.Command {
	o := simOpts{sc: defaultScenario(), scenarioFile: scenarioFileFlag{lookup: lookup}, hw: defaultHW(), policy: "static", agents: policy.AgentsCentral,
		agentFlags: agentFlags{deadline: topo.FormatDuration(gnn.DefaultRoundDeadline), compute: "0", misses: gnn.DefaultMisses},
		interval:   topo.FormatDuration(control.DefaultInterval), until: "0"}
	cmd := &cobra.Command{
		Use: "sim [flags]",
		Example: `  graphcc sim                                   # the training scenario under static DCQCN
  graphcc sim --policy graphcc --fct-out graphcc.fct --summary-out s.json
  graphcc sim --policy graphcc --agents per-switch   # one agent per switch, messages as packets
  graphcc sim --policy graphcc --agents per-switch --agent-loss 0.01 --summary-out s.json
  graphcc sim --policy graphcc --agents per-switch-ideal   # messages within the step: central's FCTs
  graphcc sim --topo topology.txt --flows flow.txt --policy static:2,32,0.01
  graphcc sim --scenario fail1 --seed 1001 --policy acc   # trains ACC on fail1 first
  graphcc sim --policy ideal                    # the fabric's fair share, no queues
  graphcc sim --policy tuned:tune.json          # the best fixed setting graphcc tune found
  graphcc sim --scenario fb90 --policy tuned:models/tuned   # fb90's own, models/tuned/fb90.json`,
		Short: "Simulate a scenario (default: the GraphCC training scenario) and print FCT slowdowns",
		Long: `sim replays flows on a fabric in the packet-level simulator and prints
the summary table: FCT slowdown (mean, p50, p95, p99) overall, per flow-size
bin, for incast and background flows and, on a phased --scenario, by the
phase each flow starts in ("phase from 25 ms"; --summary-out's
slowdown_by_phase), then throughput, queues, PFC pauses, ECN marks, events
and timing.

Without --flows the traffic is generated from the scenario flags (default:
the GraphCC training scenario, FB_Hadoop at 60 % load with a 16:1 incast
every 1 ms for 25 ms of arrivals, from --seed); with --flows an HPCC
flow.txt is replayed on --topo or the Clos; with --scenario NAME (an eval
scenario, built in or of --scenario-file) the fabric and trace are those
eval runs at --seed, and --policy acc trains ACC on that scenario first,
as eval does.

The ECN flags set every switch port: --kmin-kb and --kmax-kb are given for a
25 Gbps port and scaled by the port's rate/25G like Alibaba's thresholds
(default 100/400 KB, pmax 0.2; a 100 Gbps port gets 400/1600 KB).

A progress bar is drawn on stderr when it is a terminal. Output files are
written atomically, only when the run succeeds.

Policies (--policy; --ecn is its old name):
` + policySpecsHelp(false),
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return o.run(cmd.Context(), cmd, logger(cmd))
		},
	}
	fs := cmd.Flags()
	fs.SortFlags = false
	o.sc.addFabricFlags(fs)
	o.sc.addTrafficFlags(fs)
	o.sc.addSeedFlag(fs)
	fs.StringVar(&o.flowsFile, "flows", "", "replay this HPCC flow.txt instead of generating traffic (the traffic flags are then ignored)")
	fs.StringVar(&o.scenario, "scenario", "", "run one seed of this eval scenario (built-in, or of --scenario-file) instead of the fabric and traffic flags: the very fabric and trace eval runs at that --seed")
	o.scenarioFile.add(fs, true)
	fs.StringVar(&o.fctOut, "fct-out", "", "write the completed flows' FCT records here (HPCC fct.txt)")
	fs.StringVar(&o.summaryOut, "summary-out", "", "write the summary here as JSON")
	fs.StringVar(&o.traceOut, "trace-out", "", "write per-port telemetry every --interval here as CSV")
	fs.StringVar(&o.policy, "policy", o.policy, "the ECN control policy (see Policies below), or ideal, the fabric's max-min fair share without queues instead of the packet-level simulator")
	fs.StringVar(&o.policy, "ecn", o.policy, "the old name of --policy")
	if err := fs.MarkDeprecated("ecn", "use --policy"); err != nil {
		panic(err)
	}
	fs.StringVar(&o.agents, "agents", o.agents, "how a graphcc policy's step runs: central (one computation), per-switch (one agent per switch; hidden-state messages are packets on the links, in the priority queue, so settings take effect a few µs after the tick) or per-switch-ideal (messages delivered within the step: central's decisions at central's time); see docs/agents.md")
	fs.StringVar(&o.agentFlags.deadline, "agent-deadline", o.agentFlags.deadline, "with --agents per-switch: each round's deadline, from the tick (round k by k × this); K × it must be under --interval")
	fs.StringVar(&o.agentFlags.compute, "agent-compute", o.agentFlags.compute, "with --agents per-switch: fabric time an agent takes to compute a round; 0 computes instantly")
	fs.IntVar(&o.agentFlags.misses, "agent-misses", o.agentFlags.misses, "with --agents per-switch: consecutive steps with a late message after which an agent puts its ports at the static settings until its messages return; 0 never")
	fs.Float64Var(&o.agentFlags.loss, "agent-loss", 0, "with --agents per-switch: probability that an agent message is lost, drawn from the run's seed")
	o.hw.addFlags(fs)
	fs.StringVar(&o.interval, "interval", o.interval, "control and telemetry interval")
	fs.StringVar(&o.until, "until", o.until, "stop this long after the first flow starts; 0 = when every flow has finished")
	return cmd
}

// policySpecsHelp lists the forms of policy spec (policy.Specs) for a
// command's help, without the simulator's ideal if controlOnly.
func policySpecsHelp(controlOnly bool) string {
	var b strings.Builder
	for _, s := range policy.Specs() {
		if controlOnly && s.SimulatorOnly {
			continue
		}
		b.WriteString("  " + s.Usage + "\n")
		line := "     "
		for _, w := range strings.Fields(s.Help) {
			if len(line)+1+len(w) > 78 {
				b.WriteString(line + "\n")
				line = "     "
			}
			line += " " + w
		}
		b.WriteString(line + "\n")
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// simRun is what the flags of sim build beside the simulator's config:
// the scenario, its description, and the arrival window of generated
// traffic.
type simRun struct {
	sc     scenario.Scenario
	f      *topo.Fabric
	flows  []trace.Flow
	desc   string
	window int64
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
	if err := o.hw.checkFabric(params, r.f); err != nil {
		return cfg, "", err
	}
	interval, err := parseIntervalFlag(o.interval)
	if err != nil {
		return cfg, "", err
	}
	// ACC trained on the spot trains in the simulator it will run in
	pol, ecn, err := o.control(ctx, fs, r, policy.Env{Log: log, Params: params, Interval: interval, WarnHardware: policy.HardwareAll})
	if err != nil {
		return cfg, "", err
	}
	until, err := parseDurationFlag("until", o.until, true)
	if err != nil {
		return cfg, "", err
	}
	events, err := r.sc.LinkEvents(r.f)
	if err != nil {
		return cfg, "", fmt.Errorf("--scenario %s, seed %d: %w", r.sc.Name, o.sc.seed, err)
	}
	cfg = replay.Config{Fabric: r.f, Flows: r.flows, Params: params, Seed: o.sc.seed, ECN: ecn, Policy: pol, Interval: interval,
		MessageLoss: o.agentFlags.loss, LinkEvents: events}
	flows := r.flows
	if r.window > 0 && len(flows) > 0 && trace.FirstStart(flows) <= math.MaxInt64-r.window {
		cfg.QueueUntil = trace.FirstStart(flows) + r.window
	}
	if until > 0 && len(flows) > 0 {
		first := trace.FirstStart(flows)
		if first > math.MaxInt64-until {
			return cfg, "", fmt.Errorf("--until %s: too long", o.until)
		}
		cfg.Until = first + until
	}
	return cfg, r.desc + "; ecn " + o.policy, nil
}

// traffic builds the fabric and flows of the flags: --scenario's, or the
// fabric flags' with --flows or the generated traffic of the traffic flags.
func (o *simOpts) traffic(fs *pflag.FlagSet, log *slog.Logger) (simRun, error) {
	var r simRun
	var err error
	if o.scenario != "" || o.scenarioFile.path != "" {
		if r.sc, err = o.pickScenario(fs); err != nil {
			return r, err
		}
		if r.f, r.flows, err = r.sc.Build(o.sc.seed); err != nil {
			return r, fmt.Errorf("--scenario %s: %w", r.sc.Name, err)
		}
		r.desc = fmt.Sprintf("scenario %s, seed %d: %s; %d flows", r.sc.Name, o.sc.seed, r.sc.Describe(), len(r.flows))
		r.window = r.sc.Gen.Duration
		if starts := r.sc.PhaseStarts(); starts != nil {
			o.phases = metrics.Phases{Origin: r.sc.ArrivalStart(), Starts: starts}
		}
		return r, nil
	}
	if r.sc, r.f, err = o.sc.build(fs, log); err != nil {
		return r, err
	}
	r.desc = o.sc.describeFabric(r.f)
	if o.flowsFile != "" {
		for _, n := range trafficFlagNames() {
			if fs.Changed(n) {
				log.Warn("flag ignored with --flows", "flag", "--"+n)
			}
		}
		if r.flows, err = readFlows(o.flowsFile, r.f); err != nil {
			return r, err
		}
		r.desc += fmt.Sprintf("; %d flows from %s", len(r.flows), o.flowsFile)
	} else {
		var g workload.GenConfig
		if r.flows, g, err = o.sc.generate(r.f, fs); err != nil {
			return r, err
		}
		r.desc += fmt.Sprintf("; %d flows: %s", len(r.flows), o.sc.describeTraffic(g))
		r.window = g.Duration
	}
	r.sc.Description = r.desc
	return r, nil
}

// control returns the policy of --policy on r's fabric and the ports'
// starting settings (nil: the simulator's default), refusing ECN flags
// beside a policy that sets the thresholds or has none. For ideal it sets
// o.runFn instead.
func (o *simOpts) control(ctx context.Context, fs *pflag.FlagSet, r simRun, env policy.Env) (control.Policy, []control.ECN, error) {
	flag := "--policy"
	if fs.Changed("ecn") {
		flag = "--ecn"
	}
	ecn, err := o.hw.ecnSettings(fs, r.f)
	if err != nil {
		return nil, nil, err
	}
	ac, err := o.agentFlags.config(fs, o.agents)
	if err != nil {
		return nil, nil, err
	}
	np, err := policy.Parse(ctx, o.policy, env)
	if err != nil {
		return nil, nil, fmt.Errorf("%s %s: %w", flag, o.policy, err)
	}
	if np.Run != nil {
		o.runFn = np.Run
		if o.agents != policy.AgentsCentral {
			return nil, nil, fmt.Errorf("--agents %s: %s %s runs no agents", o.agents, flag, o.policy)
		}
		if ecn != nil {
			return nil, nil, fmt.Errorf("%s %s has no ECN thresholds: drop --kmin-kb, --kmax-kb and --pmax", flag, o.policy)
		}
		if o.traceOut != "" {
			return nil, nil, fmt.Errorf("%s %s has no per-port telemetry: drop --trace-out", flag, o.policy)
		}
		return nil, nil, nil
	}
	pol, polECN, err := np.New(r.f, r.sc, o.sc.seed)
	if err != nil {
		return nil, nil, fmt.Errorf("%s %s: %w", flag, o.policy, err)
	}
	if pol, err = policy.WithAgents(pol, r.f, o.agents, ac); err != nil {
		return nil, nil, fmt.Errorf("--agents %s with %s %s: %w", o.agents, flag, o.policy, err)
	}
	if ib, ok := pol.(*gnn.InBand); ok {
		if c, k := ib.Config(), int64(ib.Rounds()); c.Deadline+c.Compute > (env.Interval-1)/k {
			return nil, nil, fmt.Errorf("--agent-deadline %s, --agent-compute %s: %d rounds of their sum must end within --interval %s",
				o.agentFlags.deadline, o.agentFlags.compute, k, o.interval)
		}
	}
	if ps, ok := pol.(interface{ MessagesPerStep() int }); ok && env.Log != nil {
		env.Log.Info("per-switch agents", "switches", len(r.f.Switches()), "messages_per_step", ps.MessagesPerStep())
	}
	if _, ok := control.HostParamsOf(pol); ok && env.Log != nil {
		// the spec's constants replace the hardware's, as in eval and tune
		if given := slices.DeleteFunc(hostSpecFlagNames(), func(n string) bool { return !fs.Changed(n) }); len(given) > 0 {
			env.Log.Info("the policy's hosts' DCQCN constants replace those of the flags", "policy", o.policy, "flags", given)
		}
	}
	if polECN != nil {
		if ecn != nil {
			return nil, nil, fmt.Errorf("%s %s sets the ECN thresholds: drop --kmin-kb, --kmax-kb and --pmax", flag, o.policy)
		}
		ecn = polECN
	}
	return pol, ecn, nil
}

func (o *simOpts) run(ctx context.Context, cmd *cobra.Command, log *slog.Logger) error {
	if err := checkOutputsReading([]string{"--topo", o.sc.topoFile, "--flows", o.flowsFile}, "fct-out", o.fctOut, "summary-out", o.summaryOut, "trace-out", o.traceOut); err != nil {
		return err
	}
	cfg, desc, err := o.config(ctx, cmd.Flags(), log)
	if err != nil {
		return err
	}
	out := cmd.OutOrStdout()
	log.Info("simulating", "scenario", desc)

	var (
		res    *replay.Result
		simErr error
	)
	runIt := func(telemetry io.Writer) error {
		cfg.Trace = telemetry
		bar := newProgress(cmd.ErrOrStderr(), len(cfg.Flows), trace.FirstStart(cfg.Flows))
		cfg.Progress = bar.callback()
		run := simulate
		if o.runFn != nil {
			run = o.runFn
		}
		res, simErr = run(ctx, cfg)
		if simErr != nil {
			bar.done(false, 0, 0)
		} else {
			bar.done(true, res.End, res.Summary.Completed)
		}
		return simErr
	}
	var wrote outputs
	if o.traceOut != "" {
		// The trace streams out during the run into a temporary file that
		// replaces --trace-out only if the run succeeds.
		err = wrote.write("trace-out", o.traceOut, runIt)
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
	if o.fctOut != "" {
		if err := wrote.write("fct-out", o.fctOut, func(w io.Writer) error { return trace.WriteFCT(w, res.FCT) }); err != nil {
			return err
		}
	}
	if o.summaryOut != "" {
		if err := wrote.write("summary-out", o.summaryOut, func(w io.Writer) error { return fileio.WriteJSON(w, res.Summary) }); err != nil {
			return err
		}
	}
	fmt.Fprintf(out, "# %s\n\n", desc)
	if err := res.Summary.WriteTable(out); err != nil {
		return err
	}
	if n := len(cfg.LinkEvents); n > 0 {
		c := res.Counters
		fmt.Fprintf(out, "\nlink events: %d; flows rerouted: %d; packets dropped on failed links: %d, on old routes: %d; loss timeouts: %d\n",
			n, c.Reroutes, c.LinkDrops, c.StaleDrops, c.Timeouts)
	}
	wrote.report(cmd.ErrOrStderr())
	return nil
}

// simulate runs cfg to its end, stopping early with an error when ctx is
// cancelled (Ctrl-C).
func simulate(ctx context.Context, cfg replay.Config) (*replay.Result, error) {
	return replay.RunContext(ctx, cfg)
}

// readFlows reads the flow file at path for fabric f.
func readFlows(path string, f *topo.Fabric) ([]trace.Flow, error) {
	file, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("--flows: %w", err)
	}
	defer file.Close()
	flows, err := trace.ReadFlows(file, path, f)
	if err != nil {
		return nil, fmt.Errorf("--flows: %w", err)
	}
	return flows, nil
}

// pickScenario resolves --scenario and --scenario-file, refusing the flags
// a scenario replaces.
func (o *simOpts) pickScenario(fs *pflag.FlagSet) (scenario.Scenario, error) {
	if o.flowsFile != "" {
		return scenario.Scenario{}, errors.New("--scenario and --flows both give the traffic: choose one")
	}
	return pickScenario(fs, o.scenario, o.scenarioFile)
}

// pickScenario resolves --scenario name and --scenario-file file (sim's
// and gen's), refusing the fabric and traffic flags a scenario replaces.
func pickScenario(fs *pflag.FlagSet, name string, file scenarioFileFlag) (scenario.Scenario, error) {
	for _, n := range append(fabricFlagNames(), trafficFlagNames()...) {
		if fs.Changed(n) {
			return scenario.Scenario{}, fmt.Errorf("--scenario sets the fabric and traffic: drop --%s (or write a scenario file with it)", n)
		}
	}
	set, err := file.load()
	if err != nil {
		return scenario.Scenario{}, err
	}
	return set.pick(name)
}
