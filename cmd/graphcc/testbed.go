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
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"google.golang.org/grpc"

	"graphcc/control"
	"graphcc/controller"
	"graphcc/controller/lab"
	"graphcc/controller/p4rt"
	"graphcc/gnn"
	"graphcc/hostgen"
	"graphcc/internal/fileio"
	"graphcc/metrics"
	"graphcc/p4src"
	"graphcc/policy"
	"graphcc/replay"
	"graphcc/scenario"
	"graphcc/topo"
	"graphcc/trace"
	"graphcc/workload"
)

// The testbed commands: up, run, down and status of a lab of BMv2 switches
// in network namespaces (packages controller/lab, controller/p4rt and
// controller). The lab directory keeps what later commands need: the state
// file (lab), the fabric the lab was built from (testbedSpecFile) and the
// last control step (testbedLastFile).

const (
	// testbedSpecFile, in the lab directory, describes the fabric of the
	// lab, so that run and status rebuild the same Plan.
	testbedSpecFile = "testbed.json"
	// testbedLastFile, in the lab directory, holds the last control step of
	// a run (settings and telemetry of every port), for status.
	testbedLastFile = "last-step.json"
	// testbedElectionID is the P4Runtime election id of up and run (one
	// controller at a time drives a lab).
	testbedElectionID = 1
	// defaultTestbedDuration is run's default arrival window: 5 ms of fabric
	// time, 5 s of real time at the default scale.
	defaultTestbedDuration = 5 * topo.Millisecond
)

// testbedSpec is the fabric of a lab: a Clos, or an HPCC topology file's
// contents, then the links that failed.
type testbedSpec struct {
	Clos     *topo.ClosConfig `json:"clos,omitempty"`
	Topology string           `json:"topology,omitempty"` // topology.txt contents when up had --topo
	Buffer   int64            `json:"buffer_bytes"`
	Failed   []string         `json:"failed_links,omitempty"`
	Scale    int64            `json:"scale"`
}

// fabric rebuilds the spec's fabric.
func (s *testbedSpec) fabric() (*topo.Fabric, error) {
	var f *topo.Fabric
	var err error
	switch {
	case s.Clos != nil:
		f, err = topo.Clos(*s.Clos)
	case s.Topology != "":
		f, err = topo.ReadTopology(strings.NewReader(s.Topology), testbedSpecFile+" topology", s.Buffer)
	default:
		err = errors.New("no fabric")
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", testbedSpecFile, err)
	}
	if len(s.Failed) > 0 {
		if f, err = f.FailLinks(s.Failed...); err != nil {
			return nil, fmt.Errorf("%s: %w", testbedSpecFile, err)
		}
	}
	return f, nil
}

// failedLinks returns the names of the links of before that after lacks.
func failedLinks(before, after *topo.Fabric) []string {
	have := make(map[string]bool, len(after.Links))
	for _, l := range after.Links {
		have[l.Name] = true
	}
	var out []string
	for _, l := range before.Links {
		if !have[l.Name] {
			out = append(out, l.Name)
		}
	}
	return out
}

func newTestbedCmd(logger loggerFunc) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "testbed",
		Short: "Run the hardware-in-the-loop testbed: BMv2 switches in network namespaces, live ECN policies",
		Long: `testbed builds a fabric of BMv2 simple_switch_grpc switches in network
namespaces (one per switch and per host, a veth pair per link), programs them
over P4Runtime with p4src/graphcc.p4, and runs traffic from RoCEv2-like host
generators while an ECN policy (static, graphcc, acc, a model file) reads
every port's counters and rewrites its marking thresholds every control
interval, exactly as in the simulator.

Rates are the fabric's divided by --scale, and times multiplied by it, so
thresholds, features and FCT slowdowns keep their meaning. Needs root, and
simple_switch_grpc and simple_switch_CLI (BMv2 with PI) on PATH. The compiled
P4 program is built into the binary (make p4 recompiles it; --p4-json and
--p4info use other files).

  graphcc testbed up                       # the GraphCC Clos
  graphcc testbed run --ecn static,graphcc # the default workload under each policy
  graphcc testbed status
  graphcc testbed down`,
	}
	cmd.AddCommand(newTestbedUpCmd(logger), newTestbedRunCmd(logger), newTestbedDownCmd(logger), newTestbedStatusCmd())
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
		info, err := p4rt.ParseP4Info(p4src.P4Info)
		if err != nil {
			return nil, nil, fmt.Errorf("built-in P4Info: %w", err)
		}
		return info, p4src.BMv2JSON, nil
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
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	path := filepath.Join(dir, "graphcc.json")
	err := fileio.WriteAtomic(path, func(w io.Writer) error { _, err := w.Write(cfg); return err })
	return path, err
}

// actionMaxKMax returns the largest kmax of the learned policies' action
// table (gnn.Action) on a port of rate bps, so that the lab's queues are
// deep enough for every setting they may choose (lab.QueueDepth).
func actionMaxKMax(rate int64) int64 {
	var kmax int64
	for a := range gnn.NumActions {
		kmax = max(kmax, gnn.Action(a, rate).KMax)
	}
	return kmax
}

// connect dials every switch of the lab inside its namespace and returns
// the fabric runtime over them, and a function that closes them.
func connect(ctx context.Context, lb *lab.Lab, plan *lab.Plan, info *p4rt.P4Info) (*p4rt.Fabric, func(), error) {
	var sws []*p4rt.Switch
	closeAll := func() {
		for _, s := range sws {
			s.Close()
		}
	}
	for i, sp := range plan.Switches {
		s, err := p4rt.Dial(ctx, sp.Name, lab.GRPCAddr, sp.DeviceID, testbedElectionID,
			grpc.WithContextDialer(lb.Dialer(i)))
		if err != nil {
			closeAll()
			return nil, nil, err
		}
		sws = append(sws, s)
	}
	rt, err := p4rt.NewFabric(plan, info, sws)
	if err == nil {
		var depth []int64
		if depth, err = lb.State().QueueDepths(len(plan.Fabric.Ports)); err == nil {
			err = rt.SetQueueDepths(depth) // read only the cells that can count
		}
	}
	if err != nil {
		closeAll()
		return nil, nil, err
	}
	return rt, closeAll, nil
}

type testbedUpOpts struct {
	labFlags
	pipe       pipelineFlags
	sc         scenarioFlags
	scale      int64
	noSwitches bool
	switchLog  string
}

func newTestbedUpCmd(logger loggerFunc) *cobra.Command {
	o := testbedUpOpts{sc: defaultScenario(), scale: lab.DefaultScale}
	cmd := &cobra.Command{
		Use:   "up [flags]",
		Short: "Build a lab: namespaces, veth links, BMv2 switches, the P4 pipeline, forwarding and static ECN settings",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return o.run(cmd.Context(), cmd, logger(cmd))
		},
	}
	fs := cmd.Flags()
	fs.SortFlags = false
	o.labFlags.add(fs)
	o.sc.addFabricFlags(fs)
	o.sc.addSeedFlag(fs)
	fs.Int64Var(&o.scale, "scale", o.scale, "divide every link rate, and multiply every time, by this factor")
	o.pipe.add(fs)
	fs.BoolVar(&o.noSwitches, "no-switches", false, "build namespaces, links and addresses only (no BMv2)")
	fs.StringVar(&o.switchLog, "switch-log-level", "", "BMv2 log level (trace, debug, info, warn, error) into DIR/SWITCH.log; default off (BMv2 is much slower when it logs)")
	return cmd
}

func (o *testbedUpOpts) run(ctx context.Context, cmd *cobra.Command, log *slog.Logger) error {
	start := time.Now()
	if o.scale < 1 {
		return fmt.Errorf("--scale %d: must be at least 1", o.scale)
	}
	f, err := o.sc.fabric(cmd.Flags(), log)
	if err != nil {
		return err
	}
	spec := testbedSpec{Scale: o.scale}
	if spec.Buffer, err = o.sc.bufferBytes(); err != nil {
		return err
	}
	if o.sc.topoFile != "" {
		b, err := os.ReadFile(o.sc.topoFile)
		if err != nil {
			return fmt.Errorf("--topo: %w", err)
		}
		spec.Topology = string(b)
		base, err := topo.ReadTopology(strings.NewReader(spec.Topology), o.sc.topoFile, spec.Buffer)
		if err != nil {
			return fmt.Errorf("--topo: %w", err)
		}
		spec.Failed = failedLinks(base, f)
	} else {
		c, err := o.sc.closConfig()
		if err != nil {
			return err
		}
		spec.Clos = &c
		base, err := topo.Clos(c)
		if err != nil {
			return err
		}
		spec.Failed = failedLinks(base, f)
	}
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
		SwitchLogLevel: o.switchLog, Scale: o.scale, MaxKMax: actionMaxKMax, Logger: log,
	})
	if err != nil {
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
	if err := fileio.WriteAtomic(filepath.Join(lb.Dir(), testbedSpecFile), func(w io.Writer) error {
		return fileio.WriteJSON(w, spec)
	}); err != nil {
		return fail(err)
	}
	if !o.noSwitches {
		rt, closeAll, err := connect(ctx, lb, plan, info)
		if err != nil {
			return fail(err)
		}
		err = rt.Program(ctx, devcfg, control.StaticSettings(f))
		closeAll()
		if err == nil {
			err = lb.SetQueues(ctx) // in case the pipeline push reset them
		}
		if err != nil {
			return fail(err)
		}
	}
	fmt.Fprintf(cmd.OutOrStdout(), "lab %s up in %.1f s: %s; rates and times scaled by %d; state in %s\n",
		plan.Lab, time.Since(start).Seconds(), o.sc.describeFabric(f), o.scale, lb.Dir())
	return nil
}

// loadTestbed returns a live lab, its spec and its plan.
func loadTestbed(l labFlags) (*lab.Lab, *testbedSpec, *lab.Plan, error) {
	lb, err := lab.Load(l.lab, l.dir)
	if err != nil {
		return nil, nil, nil, err
	}
	b, err := os.ReadFile(filepath.Join(lb.Dir(), testbedSpecFile))
	if err != nil {
		return nil, nil, nil, fmt.Errorf("lab %s: %w (was it built by graphcc testbed up?)", l.lab, err)
	}
	var spec testbedSpec
	if err := json.Unmarshal(b, &spec); err != nil {
		return nil, nil, nil, fmt.Errorf("lab %s: %s: %w", l.lab, testbedSpecFile, err)
	}
	f, err := spec.fabric()
	if err != nil {
		return nil, nil, nil, fmt.Errorf("lab %s: %w", l.lab, err)
	}
	plan, err := lab.NewPlan(l.lab, f)
	if err != nil {
		return nil, nil, nil, err
	}
	if err := lb.Check(plan); err != nil {
		return nil, nil, nil, err
	}
	return lb, &spec, plan, nil
}

type testbedRunOpts struct {
	labFlags
	pipe       pipelineFlags
	sc         scenarioFlags
	ecn        string
	summaryOut string
	fctOut     string
	traceOut   string
	interval   string
	drain      string
	flowsFile  string
	noDelays   bool
	compareSim bool
}

func newTestbedRunCmd(logger loggerFunc) *cobra.Command {
	o := testbedRunOpts{sc: defaultScenario(), ecn: "static", interval: topo.FormatDuration(control.DefaultInterval), drain: "20ms"}
	o.sc.duration = topo.FormatDuration(defaultTestbedDuration)
	cmd := &cobra.Command{
		Use:   "run [flags]",
		Short: "Run a workload on a live lab under one or more ECN policies and print FCT slowdowns",
		Long: `run drives a workload from the simulator's generator (the same CDFs, loads and
incasts, in fabric time) on the lab's hosts under each policy of --ecn in
turn, on the same trace: before each, the pipeline is pushed again (counters
restart) with the static settings; then every control interval (--interval of
fabric time, times the lab's scale in real time) every port's counters are
read, the policy runs, and the changed settings are written, one request per
switch. It prints each policy's summary and, for several, their comparison.

The summary has the simulator's JSON keys (queues are the mean enqueue depth
the policies see; BMv2 has no PFC) plus the control loop's timings. With
several policies every output file gets the policy's name before its
extension (summary.json -> summary.static.json). A switch that fails
mid-run is named, every other switch goes back to the static settings, and
run exits non-zero.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return o.run(cmd.Context(), cmd, logger(cmd))
		},
	}
	fs := cmd.Flags()
	fs.SortFlags = false
	o.labFlags.add(fs)
	fs.StringVar(&o.ecn, "ecn", o.ecn, "ECN policies, comma-separated: static, static:KMIN_KB,KMAX_KB,PMAX, edge:KMIN_KB,KMAX_KB,PMAX:KMIN_KB,KMAX_KB,PMAX, react:Q_KB:KMIN_KB,KMAX_KB,PMAX:KMIN_KB,KMAX_KB,PMAX, graphcc, graphcc:FILE, acc:FILE, acc (trained first in the simulator, ACKs first, on the run's scenario)")
	o.sc.addTrafficFlags(fs)
	o.sc.addSeedFlag(fs)
	fs.StringVar(&o.flowsFile, "flows", "", "replay this HPCC flow.txt instead of generating traffic (the traffic flags are then ignored)")
	fs.StringVar(&o.interval, "interval", o.interval, "control interval, fabric time")
	fs.StringVar(&o.drain, "drain", o.drain, "stop this long (fabric time) after the last flow starts, finished or not")
	fs.BoolVar(&o.compareSim, "compare-sim", false, "also run every policy on the same fabric and trace in the simulator, serving ACKs first as the testbed's switches do (--ack-high-prio), and print its figures beside the testbed's")
	fs.BoolVar(&o.noDelays, "no-link-delays", false, "do not emulate the links' propagation delays at the hosts (by default a host handles each frame one path delay after it arrives)")
	fs.StringVar(&o.summaryOut, "summary-out", "", "write the summary here as JSON")
	fs.StringVar(&o.fctOut, "fct-out", "", "write the completed flows' FCT records here (HPCC fct.txt)")
	fs.StringVar(&o.traceOut, "trace-out", "", "write per-port telemetry and settings of every control step here as CSV (the simulator's --trace-out format)")
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

func (o *testbedRunOpts) run(ctx context.Context, cmd *cobra.Command, log *slog.Logger) error {
	specs := splitPolicies(o.ecn)
	if len(specs) == 0 {
		return fmt.Errorf("--ecn %q: no policy", o.ecn)
	}
	several := len(specs) > 1
	for _, s := range specs {
		if err := checkOutputs("summary-out", policyPath(o.summaryOut, s, several), "fct-out", policyPath(o.fctOut, s, several),
			"trace-out", policyPath(o.traceOut, s, several)); err != nil {
			return err
		}
	}
	interval, err := parseIntervalFlag(o.interval)
	if err != nil {
		return err
	}
	drain, err := parseDurationFlag("drain", o.drain, false)
	if err != nil {
		return err
	}
	lb, spec, plan, err := loadTestbed(o.labFlags)
	if err != nil {
		return err
	}
	if len(lb.State().Switches) == 0 {
		return fmt.Errorf("lab %s was built with --no-switches: there is nothing to run on", o.lab)
	}
	if err := lb.CheckSwitches(); err != nil {
		return err
	}
	f := plan.Fabric
	info, devcfg, err := o.pipe.load()
	if err != nil {
		return err
	}
	var flows []trace.Flow
	var g workload.GenConfig
	desc := ""
	if o.flowsFile != "" {
		if flows, err = readFlows(o.flowsFile, f); err != nil {
			return err
		}
		desc = "from " + o.flowsFile
	} else {
		if flows, g, err = o.sc.generate(f, cmd.Flags()); err != nil {
			return err
		}
		desc = o.sc.describeTraffic(g)
	}
	sc := scenario.Scenario{Name: "testbed", Description: desc, Gen: g}
	if spec.Clos != nil {
		sc.Clos = *spec.Clos
		sc.Fail = spec.Failed
	}
	if err := checkACCTrainable(specs, o.flowsFile, spec); err != nil {
		return err
	}
	env := testbedPolicyEnv(ctx, log, interval)
	var policies []policy.Named
	for _, s := range specs {
		np, err := ecnPolicy(env, s)
		if err != nil {
			return fmt.Errorf("--ecn %s: %w", s, err)
		}
		policies = append(policies, np)
	}
	rt, closeAll, err := connect(ctx, lb, plan, info)
	if err != nil {
		return err
	}
	defer closeAll()

	out := cmd.OutOrStdout()
	fmt.Fprintf(out, "# lab %s: %d switches, %d hosts, scale %d; %d flows: %s\n\n",
		plan.Lab, len(plan.Switches), len(plan.Hosts), spec.Scale, len(flows), sc.Description)
	var results []*controller.WorkloadResult
	var simulated []*replay.Result
	var qpBase uint32 // each run's flows take queue pairs of their own
	for i, np := range policies {
		if i > 0 && results[i-1].Summary.Incomplete > 0 {
			// the last run stopped with flows still sending: let the
			// switches' queues empty before this one starts
			wait := lab.QueueDrainTime(lb.State(), f)
			log.Info("waiting for the switch queues to empty", "after", policies[i-1].Name, "wait", wait)
			if err := sleepCtx(ctx, wait); err != nil {
				return err
			}
		}
		if uint64(qpBase)+uint64(len(flows)) > hostgen.MaxFlows {
			qpBase = 0
		}
		pol, polECN, err := np.New(f, sc, o.sc.seed)
		if err != nil {
			return fmt.Errorf("--ecn %s: %w", np.Name, err)
		}
		static := control.StaticSettings(f)
		if polECN != nil {
			static = polECN
		}
		if err := rt.Program(ctx, devcfg, static); err != nil {
			return err
		}
		if err := lb.SetQueues(ctx); err != nil {
			return err
		}
		log.Info("running", "policy", np.Name, "flows", len(flows))
		last := newLastStep(lb.Dir(), np.Name, f)
		cfg := controller.WorkloadConfig{
			Plan: plan, Runtime: rt, Policy: pol, Static: static, Flows: flows, QPBase: qpBase,
			Scale: float64(spec.Scale), Interval: interval, Drain: drain, OnStep: last.record,
		}
		qpBase += uint32(len(flows))
		if o.noDelays {
			cfg.Host = func(h *hostgen.HostConfig) { h.NoPropagationDelay = true }
		}
		var res *controller.WorkloadResult
		runIt := func(trace io.Writer) error {
			cfg.Trace = trace
			var err error
			res, err = controller.RunWorkload(ctx, cfg)
			return err
		}
		if p := policyPath(o.traceOut, np.Name, several); p != "" {
			err = writeOutput("trace-out", p, runIt)
		} else {
			err = runIt(nil)
		}
		last.flush()
		if err != nil {
			return fmt.Errorf("policy %s: %w", np.Name, err)
		}
		results = append(results, res)
		if p := policyPath(o.fctOut, np.Name, several); p != "" {
			if err := writeOutput("fct-out", p, func(w io.Writer) error { return trace.WriteFCT(w, res.FCT) }); err != nil {
				return err
			}
		}
		if p := policyPath(o.summaryOut, np.Name, several); p != "" {
			if err := writeOutput("summary-out", p, func(w io.Writer) error { return fileio.WriteJSON(w, res.Summary) }); err != nil {
				return err
			}
		}
		fmt.Fprintf(out, "## %s\n\n", np.Name)
		if err := res.Summary.WriteTable(out); err != nil {
			return err
		}
		s := res.Summary
		fmt.Fprintf(out, "control steps %d (%d late), step %.2f ms mean, %.2f ms p99 (read %.2f, decide %.3f, write %.2f), %d ECN entries written; %d flows incomplete\n\n",
			s.ControlSteps, s.LateSteps, s.StepMsMean, s.StepMsP99, s.ReadMsMean, s.DecideMsMean, s.WriteMsMean, s.ECNWrites, s.Incomplete)
		if o.compareSim {
			r, err := simulateLikeTestbed(ctx, np, f, sc, flows, interval, o.sc.seed)
			if err != nil {
				return err
			}
			simulated = append(simulated, r)
		}
	}
	if several || o.compareSim {
		return writeTestbedComparison(out, policies, results, simulated)
	}
	return nil
}

// testbedSimParams is the simulator that stands for the testbed: the
// default one with ACKs served first, as the testbed's switches serve them
// (replay.Params.AckHighPriority). --compare-sim runs in it, and ACC
// without a model file trains in it.
func testbedSimParams() replay.Params {
	p := replay.DefaultParams()
	p.AckHighPriority = true
	return p
}

// testbedPolicyEnv is how testbed run builds its policies: ACC without a
// model file trains in testbedSimParams at the run's control interval.
func testbedPolicyEnv(ctx context.Context, log *slog.Logger, interval int64) policyEnv {
	return policyEnv{ctx: ctx, log: log, params: testbedSimParams(), interval: interval}
}

// checkACCTrainable refuses, before anything runs, a plain acc (no model
// file) that would have nothing to train on: ACC trains on the run's
// generated traffic on its Clos, so --flows and a lab built from --topo
// need acc:FILE.
func checkACCTrainable(specs []string, flowsFile string, spec *testbedSpec) error {
	for _, s := range specs {
		if s != "acc" {
			continue
		}
		switch {
		case flowsFile != "":
			return fmt.Errorf("--ecn acc trains ACC on the generated traffic of the run's scenario, and --flows %s replaces it: train with graphcc train --kind acc and use acc:FILE", flowsFile)
		case spec.Clos == nil:
			return errors.New("--ecn acc trains ACC on a Clos scenario, and this lab was not built from one (--topo): train with graphcc train --kind acc and use acc:FILE")
		}
	}
	return nil
}

// simulateLikeTestbed runs policy np on the testbed's fabric and trace in
// testbedSimParams, with a policy instance of its own.
func simulateLikeTestbed(ctx context.Context, np policy.Named, f *topo.Fabric, sc scenario.Scenario, flows []trace.Flow, interval int64, seed uint64) (*replay.Result, error) {
	pol, polECN, err := np.New(f, sc, seed)
	if err != nil {
		return nil, fmt.Errorf("--compare-sim: %s: %w", np.Name, err)
	}
	r, err := replay.RunContext(ctx, replay.Config{Fabric: f, Flows: flows, Params: testbedSimParams(), Seed: seed, ECN: polECN, Policy: pol, Interval: interval})
	if err != nil {
		return nil, fmt.Errorf("--compare-sim: %s: %w", np.Name, err)
	}
	return r, nil
}

// writeTestbedComparison prints one row per policy, mean slowdown
// relative to the first, and, if simulated holds the simulator's runs of
// the same policies (--compare-sim), a row for each of those below.
func writeTestbedComparison(w io.Writer, policies []policy.Named, results []*controller.WorkloadResult, simulated []*replay.Result) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "policy\twhere\tcompleted\tmean slowdown\tp99 slowdown\tp99 <=100KB\tthroughput Gbps\tqueue feature KB\tCE marks\tmean / "+policies[0].Name+"\t")
	row := func(name, where string, s metrics.Summary, ref float64) {
		small := 0.0
		if len(s.SlowdownBySize) > 1 {
			small = max(s.SlowdownBySize[0].P99, s.SlowdownBySize[1].P99)
		}
		fmt.Fprintf(tw, "%s\t%s\t%d/%d\t%.3f\t%.2f\t%.2f\t%.3f\t%.1f\t%d\t%.3f\t\n", name, where, s.Completed, s.Flows,
			s.Slowdown.Mean, s.Slowdown.P99, small, s.ThroughputGbpsMean, s.QueueFeatureMean/1000, s.ECNMarkedPackets, metrics.Normalize(s.Slowdown.Mean, ref))
	}
	for i, r := range results {
		row(policies[i].Name, "testbed", r.Summary.Summary, results[0].Summary.Slowdown.Mean)
	}
	for i, r := range simulated {
		row(policies[i].Name, "simulator", r.Summary, simulated[0].Summary.Slowdown.Mean)
	}
	return tw.Flush()
}

// lastStep keeps the last control step of a run in the lab directory, for
// status: written at most once a second, and at the end.
type lastStep struct {
	path   string
	policy string
	f      *topo.Fabric
	when   time.Time
	snap   lastStepFile
}

type lastStepFile struct {
	Policy   string         `json:"policy"`
	Written  time.Time      `json:"written"`
	FabricUS float64        `json:"fabric_time_us"`
	Ports    []lastStepPort `json:"ports"`
}

type lastStepPort struct {
	Port         topo.PortID `json:"port"`
	Src          string      `json:"src"`
	Dst          string      `json:"dst"`
	KMin         int64       `json:"kmin_bytes"`
	KMax         int64       `json:"kmax_bytes"`
	PMax         float64     `json:"pmax"`
	Utilization  float64     `json:"utilization"`
	MarkingRate  float64     `json:"marking_rate"`
	QueueFeature float64     `json:"queue_feature_bytes"`
}

func newLastStep(dir, policy string, f *topo.Fabric) *lastStep {
	return &lastStep{path: filepath.Join(dir, testbedLastFile), policy: policy, f: f}
}

func (l *lastStep) record(t *control.Telemetry, ecn []control.ECN) {
	l.snap = lastStepFile{Policy: l.policy, FabricUS: float64(t.Now) / float64(topo.Microsecond), Ports: l.snap.Ports[:0]}
	for _, p := range l.f.Agents() {
		pt, s := l.f.Ports[p], &t.Ports[p]
		l.snap.Ports = append(l.snap.Ports, lastStepPort{
			Port: p, Src: l.f.Nodes[pt.Src].Name, Dst: l.f.Nodes[pt.Dst].Name,
			KMin: ecn[p].KMin, KMax: ecn[p].KMax, PMax: ecn[p].PMax,
			Utilization: s.Utilization(pt.Rate, t.Interval), MarkingRate: s.MarkingRate(pt.Rate, t.Interval),
			QueueFeature: s.QueueFeature(),
		})
	}
	if time.Since(l.when) >= time.Second {
		l.flush()
	}
}

func (l *lastStep) flush() {
	if l.snap.Ports == nil {
		return
	}
	l.when = time.Now()
	l.snap.Written = l.when.UTC()
	// Best effort: status is a convenience, a run must not fail on it.
	fileio.WriteAtomic(l.path, func(w io.Writer) error { return fileio.WriteJSON(w, l.snap) })
}

func newTestbedDownCmd(logger loggerFunc) *cobra.Command {
	var l labFlags
	cmd := &cobra.Command{
		Use:   "down [flags]",
		Short: "Remove every namespace, link and switch process of a lab (also after a crash; running it twice is harmless)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			start := time.Now()
			ctx, cancel := context.WithTimeout(context.WithoutCancel(cmd.Context()), time.Minute)
			defer cancel()
			if err := lab.DownLogger(ctx, l.lab, l.dir, logger(cmd)); err != nil {
				return err
			}
			os.Remove(filepath.Join(l.directory(), testbedSpecFile))
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
		Use:   "status [flags]",
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
			fmt.Fprintf(out, "\nlast control step: policy %s at %.0f us of fabric time (%s)\n",
				last.Policy, last.FabricUS, last.Written.Local().Format(time.DateTime))
			tw := tabwriter.NewWriter(out, 0, 0, 2, ' ', tabwriter.AlignRight)
			fmt.Fprintln(tw, "port\tlink\tkmin KB\tkmax KB\tpmax\tutil\tmarking\tqueue KB\t")
			for _, p := range last.Ports {
				fmt.Fprintf(tw, "%d\t%s->%s\t%g\t%g\t%g\t%.3f\t%.3f\t%.1f\t\n", p.Port, p.Src, p.Dst,
					float64(p.KMin)/control.KB, float64(p.KMax)/control.KB, p.PMax, p.Utilization, p.MarkingRate, p.QueueFeature/1000)
			}
			return tw.Flush()
		},
	}
	l.add(cmd.Flags())
	return cmd
}

// sleepCtx waits d, or until ctx ends (then it returns ctx's cause).
func sleepCtx(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return context.Cause(ctx)
	}
}
