package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"golang.org/x/sys/unix"

	"graphcc/control"
	"graphcc/controller"
	"graphcc/controller/lab"
	"graphcc/controller/p4rt"
	"graphcc/dcqcn"
	"graphcc/experiment"
	"graphcc/gnn"
	"graphcc/hostgen"
	"graphcc/internal/fileio"
	"graphcc/policy"
	"graphcc/replay"
	"graphcc/scenario"
	"graphcc/topo"
	"graphcc/trace"
)

// The testbed commands: up, run, down and status of a lab of BMv2 switches
// in network namespaces (packages controller/lab, controller/p4rt and
// controller). The lab directory keeps what later commands need: the state
// file and the spec file (lab.SpecFile) of package lab, and the last
// control step (controller.LastStepFile).

const (
	// testbedElectionID is the P4Runtime election id of up and run (one
	// controller at a time drives a lab).
	testbedElectionID = 1
	// defaultTestbedDuration is run's default arrival window: 5 ms of fabric
	// time, 5 s of real time at the default scale.
	defaultTestbedDuration = 5 * topo.Millisecond
	// testbedLastFile is controller.LastStepFile, under the name status
	// reads it by.
	testbedLastFile = controller.LastStepFile
)

// lastStepFile is the last control step status shows
// (controller.LastStep).
type lastStepFile = controller.LastStep

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

// labFlags are the flags naming a lab.
type labFlags struct {
	lab, dir string
}

func (l *labFlags) add(fs *pflag.FlagSet) {
	fs.StringVar(&l.lab, "lab", lab.DefaultName, "lab name: prefixes its namespaces")
	fs.StringVar(&l.dir, "dir", "", "lab directory (state, switch logs); default "+lab.DefaultRunDir+"/LAB")
}

func (l *labFlags) directory() string {
	if l.dir != "" {
		return l.dir
	}
	return lab.DefaultDir(l.lab)
}

// pipelineFlags locate the compiled P4 program: by default the one built
// into the binary (p4src), else files from make p4.
type pipelineFlags struct {
	json, p4info string
}

func (p *pipelineFlags) add(fs *pflag.FlagSet) {
	fs.StringVar(&p.json, "p4-json", "", "BMv2 JSON of graphcc.p4 (make p4); default the one built in")
	fs.StringVar(&p.p4info, "p4info", "", "P4Info of graphcc.p4, text format (make p4); default the one built in")
}

// load returns the P4Info and the BMv2 JSON.
func (p *pipelineFlags) load() (*p4rt.P4Info, []byte, error) {
	if (p.json == "") != (p.p4info == "") {
		return nil, nil, errors.New("--p4-json and --p4info go together (both from one make p4)")
	}
	if p.json == "" {
		return p4rt.BuiltinPipeline()
	}
	info, err := p4rt.ReadP4InfoFile(p.p4info)
	if err != nil {
		return nil, nil, fmt.Errorf("--p4info: %w", err)
	}
	cfg, err := os.ReadFile(p.json)
	if err != nil {
		return nil, nil, fmt.Errorf("--p4-json: %w", err)
	}
	return info, cfg, nil
}

// jsonFile returns a path to the BMv2 JSON for the Thrift CLI: --p4-json,
// or the built-in one written into the lab directory dir.
func (p *pipelineFlags) jsonFile(dir string, cfg []byte) (string, error) {
	if p.json != "" {
		return p.json, nil
	}
	return lab.WritePipelineJSON(dir, cfg)
}

type testbedUpOpts struct {
	labFlags
	pipe       pipelineFlags
	sc         scenarioFlags
	scale      int64
	noSwitches bool
	switchLog  string
	realtime   int
}

func newTestbedUpCmd(logger loggerFunc) *cobra.Command {
	o := testbedUpOpts{sc: defaultScenario(), scale: lab.DefaultScale}
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
	o.labFlags.add(fs)
	o.sc.add(fs, omitTraffic)
	fs.Int64Var(&o.scale, "scale", o.scale, "divide every link rate, and multiply every time, by this factor")
	o.pipe.add(fs)
	fs.BoolVar(&o.noSwitches, "no-switches", false, "build namespaces, links and addresses only (no BMv2)")
	fs.StringVar(&o.switchLog, "switch-log-level", "", "BMv2 log level (trace, debug, info, warn, error) into DIR/SWITCH.log; default off (BMv2 is much slower when it logs)")
	fs.IntVar(&o.realtime, "realtime", 0, "run every switch thread at this SCHED_FIFO priority (1-99, as chrt -f; needs root), recorded in the lab and set again by testbed run; 0: normal scheduling (docs/testbed.md)")
	return cmd
}

func (o *testbedUpOpts) run(ctx context.Context, cmd *cobra.Command, log *slog.Logger) error {
	start := time.Now()
	if o.scale < 1 {
		return fmt.Errorf("--scale %d: must be at least 1", o.scale)
	}
	if err := checkRealtimeFlag(o.realtime, o.noSwitches); err != nil {
		return err
	}
	sc, f, err := o.sc.build(cmd.Flags(), log)
	if err != nil {
		return err
	}
	spec := lab.Spec{Scale: o.scale, Clos: &sc.Clos}
	if spec.Buffer, err = o.sc.clos.BufferBytes("--"); err != nil {
		return err
	}
	if o.sc.topoFile != "" {
		b, err := os.ReadFile(o.sc.topoFile)
		if err != nil {
			return fmt.Errorf("--topo: %w", err)
		}
		spec.Clos, spec.Topology = nil, string(b)
	}
	base, err := sc.BaseFabric()
	if err != nil {
		return err
	}
	spec.Failed = lab.FailedLinks(base, f)
	plan, err := lab.NewPlan(o.lab, f)
	if err != nil {
		return fmt.Errorf("--lab: %w", err)
	}
	var info *p4rt.P4Info
	var devcfg []byte
	var jsonPath string
	if !o.noSwitches {
		if info, devcfg, err = o.pipe.load(); err != nil {
			return err
		}
		if jsonPath, err = o.pipe.jsonFile(o.directory(), devcfg); err != nil {
			return err
		}
	}
	lb, err := lab.Up(ctx, lab.Config{
		Plan: plan, Dir: o.dir, NoSwitches: o.noSwitches, PipelineJSON: jsonPath,
		SwitchLogLevel: o.switchLog, Scale: o.scale, MaxKMax: gnn.MaxKMax, Realtime: o.realtime, Logger: log,
	})
	if err != nil {
		if o.realtime > 0 && errors.Is(err, unix.EPERM) {
			err = fmt.Errorf("--realtime %d: %w", o.realtime, err)
		}
		return err
	}
	// From here a failure takes the lab down again.
	fail := func(err error) error {
		dctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
		defer cancel()
		if derr := lb.Down(dctx); derr != nil {
			err = errors.Join(err, fmt.Errorf("take the lab down: %w", derr))
		}
		return err
	}
	if err := lab.WriteSpec(lb.Dir(), &spec); err != nil {
		return fail(err)
	}
	if !o.noSwitches {
		if err := o.program(ctx, lb, plan, info, devcfg); err != nil {
			return fail(err)
		}
	}
	sched := ""
	if o.realtime > 0 {
		sched = fmt.Sprintf("; switch threads at SCHED_FIFO %d", o.realtime)
	}
	fmt.Fprintf(cmd.OutOrStdout(), "lab %s up in %.1f s: %s; rates and times scaled by %d%s; state in %s\n",
		plan.Lab, time.Since(start).Seconds(), sc.DescribeFabric(f), o.scale, sched, lb.Dir())
	return nil
}

// program pushes the pipeline with the static settings to the switches of
// a lab just up, sets their queues again (the push may reset them), and
// puts any thread the push made at the lab's real-time priority.
func (o *testbedUpOpts) program(ctx context.Context, lb *lab.Lab, plan *lab.Plan, info *p4rt.P4Info, devcfg []byte) error {
	rt, closeAll, err := p4rt.Connect(ctx, lb, plan, info, testbedElectionID)
	if err != nil {
		return err
	}
	err = rt.Program(ctx, devcfg, control.StaticSettings(plan.Fabric))
	closeAll()
	if err != nil {
		return err
	}
	if err := lb.SetQueues(ctx); err != nil {
		return err
	}
	if _, err := lb.ApplyRealtime(); err != nil {
		return fmt.Errorf("--realtime %d: %w", o.realtime, err)
	}
	return nil
}

// checkRealtimeFlag checks testbed up's --realtime before anything is
// built: a SCHED_FIFO priority needs switches and root.
func checkRealtimeFlag(prio int, noSwitches bool) error {
	if prio == 0 {
		return nil
	}
	if err := lab.CheckRealtime(prio); err != nil {
		return fmt.Errorf("--realtime %d: %w", prio, err)
	}
	if noSwitches {
		return fmt.Errorf("--realtime %d: with --no-switches there are no switch threads to schedule", prio)
	}
	if os.Geteuid() != 0 {
		return fmt.Errorf("--realtime %d: real-time scheduling needs root (CAP_SYS_NICE); run testbed up as root", prio)
	}
	return nil
}

type testbedRunOpts struct {
	labFlags
	pipe       pipelineFlags
	sc         scenarioFlags
	policies   []string
	ecn        string // the deprecated --ecn
	out        outputFlags
	interval   intervalFlag
	drain      string
	flowsFile  string
	noDelays   bool
	compareSim bool
	hw         hwFlags // the hosts' DCQCN constants (--dcqcn-*) alone
	// --agents and its flags
	agents            string
	agentRoundTimeout time.Duration
	agentMissLimit    int
}

func newTestbedRunCmd(logger loggerFunc) *cobra.Command {
	o := testbedRunOpts{sc: defaultScenario(), policies: []string{"static"}, drain: "20ms",
		agents: controller.AgentsCentral, agentMissLimit: control.DefaultMissLimit, hw: defaultHW()}
	o.sc.duration = topo.FormatDuration(defaultTestbedDuration)
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
	o.labFlags.add(fs)
	fs.StringArrayVar(&o.policies, "policies", o.policies, "ECN policies, comma-separated or repeated: static, static:KMIN_KB,KMAX_KB,PMAX, edge:…, react:…, sched:…, tuned:FILE, graphcc[:FILE], acc:FILE, acc (trained first in the simulator, ACKs first, on the run's scenario); see Policies below")
	fs.StringVar(&o.ecn, "ecn", "", "the old name of --policies")
	if err := fs.MarkDeprecated("ecn", "use --policies"); err != nil {
		panic(err)
	}
	o.sc.add(fs, omitFabric)
	fs.StringVar(&o.flowsFile, "flows", "", "replay this HPCC flow.txt instead of generating traffic (the traffic flags are then ignored)")
	o.interval.add(fs, "fabric time")
	fs.StringVar(&o.drain, "drain", o.drain, "stop this long (fabric time) after the last flow starts, finished or not")
	o.hw.add(fs, omitECN|omitSwitch)
	fs.BoolVar(&o.compareSim, "compare-sim", false, "also run every policy on the same fabric and trace in the simulator, serving ACKs first as the testbed's switches do (--ack-high-prio), and print its figures beside the testbed's")
	fs.StringVar(&o.agents, "agents", o.agents, "how a graphcc policy's step runs: central (this process reads, decides and writes every switch) or per-switch (one agent process per switch, hidden states exchanged in-band, the central step run as a shadow that counts decision_mismatches; docs/agents.md)")
	fs.DurationVar(&o.agentRoundTimeout, "agent-round-timeout", 0, "with --agents per-switch: round k of a step ends k times this (real time) after the step is due, and the neighbours' messages missing then are replaced by the fallback (0: a quarter of the real control interval over K)")
	fs.IntVar(&o.agentMissLimit, "agent-misses", o.agentMissLimit, "with --agents per-switch: steps in a row with a message late after which an agent holds its ports on the static settings until its messages return; 0 never (as sim's --agent-misses)")
	addRenamedInt(fs, &o.agentMissLimit, "agent-miss-limit", "agent-misses")
	fs.BoolVar(&o.noDelays, "no-link-delays", false, "do not emulate the links' propagation delays at the hosts (by default a host handles each frame one path delay after it arrives)")
	o.out.add(fs)
	o.pipe.add(fs)
	return cmd
}

// policyPath inserts the policy's name before path's extension when a run
// has several policies.
func policyPath(path, policy string, several bool) string {
	if path == "" || !several {
		return path
	}
	ext := filepath.Ext(path)
	name := strings.NewReplacer(":", "-", "/", "-", ",", "-").Replace(policy)
	return strings.TrimSuffix(path, ext) + "." + name + ext
}

// specs returns the policy specs of --policies (or of the deprecated
// --ecn) and the flag that gave them, for messages.
func (o *testbedRunOpts) specs(fs *pflag.FlagSet) (string, []string, error) {
	flag, values := "--policies", o.policies
	if fs.Changed("ecn") {
		if fs.Changed("policies") {
			return "", nil, errors.New("--ecn and --policies: choose one (--ecn is the old name of --policies)")
		}
		flag, values = "--ecn", []string{o.ecn}
	}
	var specs []string
	for _, v := range values {
		specs = append(specs, policy.Split(v)...)
	}
	if len(specs) == 0 {
		return "", nil, fmt.Errorf("%s %q: no policy", flag, strings.Join(values, ","))
	}
	return flag, specs, nil
}

// testbedRun is one testbed run of several policies: what each policy's
// run (one) needs beyond its workload, and what it leaves for the
// comparison.
type testbedRun struct {
	o         *testbedRunOpts
	out       io.Writer
	dir       string // the lab's
	several   bool
	policies  []policy.Named
	sc        scenario.Scenario
	interval  int64
	params    replay.Params            // the simulator that stands for the testbed: TestbedParams with the hosts' DCQCN
	simulated []experiment.ComparedRun // --compare-sim's runs
	wrote     outputs
	// for --agents per-switch
	rt   *p4rt.Fabric
	info *p4rt.P4Info
	log  *slog.Logger
	lab  *lab.Lab
}

func (o *testbedRunOpts) run(ctx context.Context, cmd *cobra.Command, log *slog.Logger) error {
	flag, specs, err := o.specs(cmd.Flags())
	if err != nil {
		return err
	}
	r := &testbedRun{o: o, out: cmd.OutOrStdout(), several: len(specs) > 1}
	if err := o.checkFlags(specs, r.several); err != nil {
		return err
	}
	if r.interval, err = o.interval.parse(); err != nil {
		return err
	}
	r.params = experiment.TestbedParams()
	if err := o.hw.dcqcn(&r.params.DCQCN); err != nil {
		return err
	}
	drain, err := topo.ParseDuration("--drain", o.drain, false)
	if err != nil {
		return err
	}
	lb, spec, plan, err := lab.LoadSpec(o.lab, o.dir)
	if err != nil {
		return err
	}
	if len(lb.State().Switches) == 0 {
		return fmt.Errorf("lab %s was built with --no-switches: there is nothing to run on", o.lab)
	}
	if err := lb.CheckSwitches(); err != nil {
		return err
	}
	r.dir, r.lab = lb.Dir(), lb
	info, devcfg, err := o.pipe.load()
	if err != nil {
		return err
	}
	if err := o.hw.checkFabric(plan.Fabric); err != nil {
		return err
	}
	flows, err := o.traffic(cmd.Flags(), spec, plan.Fabric, log, r)
	if err != nil {
		return err
	}
	if err := checkACCTrainable(flag, specs, o.flowsFile, spec); err != nil {
		return err
	}
	runs, err := r.parsePolicies(ctx, flag, specs, log)
	if err != nil {
		return err
	}
	rt, closeAll, err := p4rt.Connect(ctx, lb, plan, info, testbedElectionID)
	if err != nil {
		return err
	}
	defer closeAll()
	r.rt, r.info, r.log = rt, info, log
	fmt.Fprintf(r.out, "# lab %s: %d switches, %d hosts, scale %d; %d flows: %s\n\n",
		plan.Lab, len(plan.Switches), len(plan.Hosts), spec.Scale, len(flows), r.sc.Description)
	w := controller.WorkloadConfig{Plan: plan, Runtime: rt, Flows: flows, Scale: float64(spec.Scale), Interval: r.interval, Drain: drain,
		Host: testbedHostConfig(r.params.DCQCN, o.noDelays), QueueWindow: r.sc.Gen.Duration}
	results, err := controller.RunPolicies(ctx, controller.PoliciesConfig{
		Workload: w, Policies: runs, Log: log, Run: r.one, DrainWait: lab.QueueDrainTime(lb.State(), plan.Fabric),
		Reset: func(ctx context.Context, static []control.ECN) error {
			if err := rt.Program(ctx, devcfg, static); err != nil {
				return err
			}
			return lb.SetQueues(ctx)
		},
	})
	if err != nil {
		return err
	}
	defer r.wrote.report(cmd.ErrOrStderr())
	if r.several || o.compareSim {
		names := make([]string, len(r.policies))
		testbed := make([]experiment.ComparedRun, len(results))
		for i, res := range results {
			names[i], testbed[i] = r.policies[i].Name, experiment.ComparedRun{Summary: res.Summary.Summary, FCT: res.FCT}
		}
		return experiment.WriteTestbedComparison(r.out, names, testbed, r.simulated)
	}
	return nil
}

// checkFlags checks every output file of every policy of specs (several:
// one file per policy) and the --agents flags.
func (o *testbedRunOpts) checkFlags(specs []string, several bool) error {
	for _, s := range specs {
		if err := fileio.CheckOutputs(nil, "--summary-out", policyPath(o.out.summary, s, several), "--fct-out", policyPath(o.out.fct, s, several),
			"--trace-out", policyPath(o.out.trace, s, several)); err != nil {
			return err
		}
	}
	switch {
	case o.agents != controller.AgentsCentral && o.agents != controller.AgentsPerSwitch:
		return fmt.Errorf("--agents %q: want %s or %s", o.agents, controller.AgentsCentral, controller.AgentsPerSwitch)
	case o.agentMissLimit < 0:
		return fmt.Errorf("--agent-misses %d: must not be negative (0 never reverts to the static settings)", o.agentMissLimit)
	case o.agentRoundTimeout < 0:
		return fmt.Errorf("--agent-round-timeout %v: must not be negative", o.agentRoundTimeout)
	}
	return nil
}

// traffic returns the run's flows on the lab's fabric f (--flows, or
// generated from the traffic flags on the lab's scenario, its incast
// fitted to the lab: testbedFanIn), and sets r.sc to the run's scenario.
func (o *testbedRunOpts) traffic(fs *pflag.FlagSet, spec *lab.Spec, f *topo.Fabric, log *slog.Logger, r *testbedRun) ([]trace.Flow, error) {
	r.sc = scenario.Scenario{Name: "testbed"}
	if spec.Clos != nil {
		r.sc.Clos, r.sc.Fail = *spec.Clos, spec.Failed
	}
	if o.flowsFile != "" {
		r.sc.Description = "from " + o.flowsFile
		return readFlows(o.flowsFile, f)
	}
	if !o.sc.noIncast {
		fanIn, err := testbedFanIn(o.sc.incastFanIn, fs.Changed("incast-fanin"), len(f.Hosts()))
		if err != nil {
			return nil, err
		}
		if fanIn != o.sc.incastFanIn {
			log.Warn("the lab is too small for the default incast: lowered --incast-fanin to hosts-1", "hosts", len(f.Hosts()), "from", o.sc.incastFanIn, "to", fanIn)
			o.sc.incastFanIn = fanIn
		}
	}
	flows, g, err := o.sc.generate(f, fs)
	if err != nil {
		return nil, err
	}
	r.sc.Gen, r.sc.Description = g, g.Describe()
	return flows, nil
}

// testbedFanIn is the incast fan-in of a testbed run on a lab of hosts
// hosts: an incast has at most hosts-1 senders, so a fan-in the user did
// not set (set false, the default) is lowered to that, and one the user
// set that does not fit is refused, naming the fix.
func testbedFanIn(fanIn int, set bool, hosts int) (int, error) {
	most := hosts - 1
	switch {
	case fanIn <= most || most < 1:
		return fanIn, nil // fits, or no incast can: the traffic flags' check says so
	case set:
		return 0, fmt.Errorf("--incast-fanin %d: the lab has %d hosts, so an incast has at most %d senders: give --incast-fanin %d or less, or --no-incast, or build a larger lab (testbed up --hosts-per-leaf)", fanIn, hosts, most, most)
	}
	return most, nil
}

// testbedHostConfig returns what a testbed run applies to every host's
// configuration: the DCQCN constants d (of a 25 Gbps NIC, as the
// simulator's replay.Params.DCQCN: AI and HAI scaled to the host's line
// rate) unless they are the defaults, which hostgen has already, and no
// emulated propagation delay with noDelays; nil when neither applies.
func testbedHostConfig(d dcqcn.Params, noDelays bool) func(*hostgen.HostConfig) {
	dflt := d == replay.DefaultParams().DCQCN
	if dflt && !noDelays {
		return nil
	}
	hp := control.HostParamsAt(d, control.RefRate)
	return func(h *hostgen.HostConfig) {
		if !dflt {
			h.DCQCN = hp.Apply(d, h.Rate()) // as the simulator scales d to a NIC
		}
		h.NoPropagationDelay = noDelays
	}
}

// parsePolicies resolves specs (of flag) into the runs of RunPolicies,
// keeping the policies in r.
func (r *testbedRun) parsePolicies(ctx context.Context, flag string, specs []string, log *slog.Logger) ([]controller.PolicyRun, error) {
	env := experiment.TestbedPolicyEnv(log, r.params, r.interval)
	var runs []controller.PolicyRun
	for _, s := range specs {
		np, err := policy.ParseControl(ctx, s, env)
		if err != nil {
			return nil, fmt.Errorf("%s %s: %w", flag, s, err)
		}
		if np.Check != nil { // before the lab runs anything (tuned:DIR)
			if err := np.Check(r.sc); err != nil {
				return nil, fmt.Errorf("%s %s: %w", flag, s, err)
			}
		}
		r.policies = append(r.policies, np)
		runs = append(runs, controller.PolicyRun{Name: np.Name, New: func(f *topo.Fabric) (control.Policy, []control.ECN, error) {
			pol, ecn, err := np.New(f, r.sc, r.o.sc.seed)
			if err != nil {
				return nil, nil, fmt.Errorf("%s %s: %w", flag, np.Name, err)
			}
			return pol, ecn, nil
		}})
	}
	return runs, nil
}

// one runs policy name's workload w (RunPolicies' Run): its trace and last
// step go to their files, and its outputs are written and printed as it
// ends, with the simulator's run of it beside (--compare-sim).
func (r *testbedRun) one(ctx context.Context, name string, w controller.WorkloadConfig) (*controller.WorkloadResult, error) {
	o := r.o
	last := controller.NewStepRecorder(r.dir, name, w.Plan.Fabric)
	w.OnStep = last.Record
	if o.agents == controller.AgentsPerSwitch {
		a, err := r.perSwitchAgents(w.Policy, w.Static, w.Plan, r.rt, r.info, r.log)
		if err != nil {
			return nil, fmt.Errorf("policy %s: %w", name, err)
		}
		w.Agents = a
	}
	sched, err := r.switchSched()
	if err != nil {
		return nil, fmt.Errorf("policy %s: %w", name, err)
	}
	var res *controller.WorkloadResult
	runIt := func(trace io.Writer) error {
		w.Trace = trace
		var err error
		res, err = controller.RunWorkload(ctx, w)
		return err
	}
	if p := policyPath(o.out.trace, name, r.several); p != "" {
		err = r.wrote.write("trace-out", p, runIt)
	} else {
		err = runIt(nil)
	}
	last.Flush()
	if err != nil {
		return nil, fmt.Errorf("policy %s: %w", name, err)
	}
	res.Summary.SwitchSched = sched
	if p := policyPath(o.out.fct, name, r.several); p != "" {
		if err := r.wrote.write("fct-out", p, func(w io.Writer) error { return trace.WriteFCT(w, res.FCT) }); err != nil {
			return nil, err
		}
	}
	if p := policyPath(o.out.summary, name, r.several); p != "" {
		if err := r.wrote.write("summary-out", p, func(w io.Writer) error { return fileio.WriteJSON(w, res.Summary) }); err != nil {
			return nil, err
		}
	}
	fmt.Fprintf(r.out, "## %s\n\n", name)
	if err := res.Summary.WriteTable(r.out); err != nil {
		return nil, err
	}
	if o.compareSim {
		np := r.policies[len(r.simulated)]
		sim, err := experiment.SimulateLikeTestbed(ctx, np, w.Plan.Fabric, r.sc, w.Flows, experiment.TestbedSim{Params: r.params, Interval: r.interval,
			Seed: o.sc.seed, Agents: o.agents, RoundTimeout: o.agentRoundTimeout, MissLimit: o.agentMissLimit, Scale: w.Scale})
		if err != nil {
			return nil, fmt.Errorf("--compare-sim: %w", err)
		}
		r.simulated = append(r.simulated, experiment.ComparedRun{Summary: sim.Summary, FCT: sim.FCT})
	}
	return res, nil
}

// switchSched puts the switches' threads back at the lab's real-time
// priority (testbed up --realtime; threads made since up inherit it, so
// this changes none unless someone else did) and names their scheduling
// as it is now, for the summary's switch_sched.
func (r *testbedRun) switchSched() (string, error) {
	n, err := r.lab.ApplyRealtime()
	if err != nil {
		return "", fmt.Errorf("the lab's --realtime %d: %w", r.lab.State().Realtime, err)
	}
	if n > 0 {
		r.log.Info("switch threads set to the lab's real-time priority again", "threads", n, "sched", lab.SchedName(r.lab.State().Realtime))
	}
	sched, threads, err := r.lab.SwitchSched()
	if err != nil {
		return "", err
	}
	r.log.Debug("switch threads", "sched", sched, "threads", threads)
	return sched, nil
}

// checkACCTrainable refuses, before anything runs, a plain acc (no model
// file) that would have nothing to train on: ACC trains on the run's
// generated traffic on its Clos, so --flows and a lab built from --topo
// need acc:FILE.
func checkACCTrainable(flag string, specs []string, flowsFile string, spec *lab.Spec) error {
	for _, s := range specs {
		if s != "acc" {
			continue
		}
		switch {
		case flowsFile != "":
			return fmt.Errorf("%s acc trains ACC on the generated traffic of the run's scenario, and --flows %s replaces it: train with graphcc train --kind acc and use acc:FILE", flag, flowsFile)
		case spec.Clos == nil:
			return fmt.Errorf("%s acc trains ACC on a Clos scenario, and this lab was not built from one (--topo): train with graphcc train --kind acc and use acc:FILE", flag)
		}
	}
	return nil
}

func newTestbedDownCmd(logger loggerFunc) *cobra.Command {
	var l labFlags
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
			if err := lab.DownLogger(ctx, l.lab, l.dir, logger(cmd)); err != nil {
				return err
			}
			os.Remove(filepath.Join(l.directory(), lab.SpecFile))
			os.Remove(filepath.Join(l.directory(), testbedLastFile))
			fmt.Fprintf(cmd.OutOrStdout(), "lab %s down in %.1f s\n", l.lab, time.Since(start).Seconds())
			return nil
		},
	}
	l.add(cmd.Flags())
	return cmd
}

func newTestbedStatusCmd() *cobra.Command {
	var l labFlags
	cmd := &cobra.Command{
		Use: "status [flags]",
		Example: `  graphcc testbed status
  graphcc testbed status --lab small`,
		Short: "Show a lab's switches, ports, current ECN settings and last telemetry",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			out := cmd.OutOrStdout()
			st, err := lab.ReadStatus(l.lab, l.dir)
			if errors.Is(err, fs.ErrNotExist) {
				// It fails, so that a script can ask whether a lab is up.
				where, up := "", "graphcc testbed up --lab "+l.lab
				if l.dir != "" {
					where, up = " in "+l.dir, up+" --dir "+l.dir
				}
				return fmt.Errorf("no lab %q is up%s (%s starts one)", l.lab, where, up)
			}
			if err != nil {
				return err
			}
			if err := st.WriteText(out); err != nil {
				return err
			}
			b, err := os.ReadFile(filepath.Join(l.directory(), testbedLastFile))
			if errors.Is(err, os.ErrNotExist) {
				fmt.Fprintln(out, "\nno control step yet: the switches hold the static settings of up")
				return nil
			}
			if err != nil {
				return err
			}
			var last lastStepFile
			if err := json.Unmarshal(b, &last); err != nil {
				return fmt.Errorf("%s: %w", testbedLastFile, err)
			}
			return last.WriteText(out)
		},
	}
	l.add(cmd.Flags())
	return cmd
}
