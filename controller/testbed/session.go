package testbed

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"time"

	"graphcc/control"
	"graphcc/controller"
	"graphcc/controller/lab"
	"graphcc/controller/p4rt"
	"graphcc/experiment"
	"graphcc/internal/fileio"
	"graphcc/policy"
	"graphcc/replay"
	"graphcc/scenario"
	"graphcc/trace"
)

// A Session is a live lab opened for runs (Open): the lab, the spec it
// was built from, its plan and the pipeline its switches run.
type Session struct {
	Lab  *lab.Lab
	Spec *lab.Spec
	Plan *lab.Plan

	name, dir string // as given to Open, for the agent processes
	pipe      Pipeline
	info      *p4rt.P4Info
	devcfg    []byte
}

// Open opens the live lab name in dir ("" for lab.DefaultDir) for runs
// (lab.LoadSpec): it must have been built with switches, and they must
// be running; pipe is the pipeline its switches run, pushed again before
// each policy's run.
func Open(name, dir string, pipe Pipeline) (*Session, error) {
	lb, spec, plan, err := lab.LoadSpec(name, dir)
	if err != nil {
		return nil, err
	}
	if len(lb.State().Switches) == 0 {
		return nil, fmt.Errorf("lab %s was built with --no-switches: there is nothing to run on", name)
	}
	if err := lb.CheckSwitches(); err != nil {
		return nil, err
	}
	info, devcfg, err := pipe.Load()
	if err != nil {
		return nil, err
	}
	return &Session{Lab: lb, Spec: spec, Plan: plan, name: name, dir: dir, pipe: pipe, info: info, devcfg: devcfg}, nil
}

// Scenario returns the lab's fabric as the scenario "testbed", without
// traffic: its Clos and failed links, or no Clos for a lab built from a
// topology file. A caller adds the traffic (Gen, Description) of the run.
func (s *Session) Scenario() scenario.Scenario {
	sc := scenario.Scenario{Name: "testbed"}
	if s.Spec.Clos != nil {
		sc.Clos, sc.Fail = *s.Spec.Clos, s.Spec.Failed
	}
	return sc
}

// AgentsConfig is how a run computes a GraphCC policy's step (testbed run
// --agents and its flags).
type AgentsConfig struct {
	// Mode is controller.AgentsCentral or controller.AgentsPerSwitch
	// (one agent process per switch: RunAgent).
	Mode string
	// RoundTimeout: round k of an agent's step ends k times this (real
	// time) after the step is due; 0: a quarter of the real control
	// interval over K.
	RoundTimeout time.Duration
	// MissLimit is the steps in a row with a message late after which an
	// agent holds its ports on the static settings; 0 never.
	MissLimit int
}

// Check checks a's mode and limits.
func (a AgentsConfig) Check() error {
	switch {
	case a.Mode != controller.AgentsCentral && a.Mode != controller.AgentsPerSwitch:
		return fmt.Errorf("--agents %q: want %s or %s", a.Mode, controller.AgentsCentral, controller.AgentsPerSwitch)
	case a.MissLimit < 0:
		return fmt.Errorf("--agent-misses %d: must not be negative (0 never reverts to the static settings)", a.MissLimit)
	case a.RoundTimeout < 0:
		return fmt.Errorf("--agent-round-timeout %v: must not be negative", a.RoundTimeout)
	}
	return nil
}

// Outputs are the files a run writes, "" for none; with several policies
// each policy's file is PolicyPath's. Errors name them by testbed run's
// flags (--summary-out, --fct-out, --trace-out).
type Outputs struct {
	Summary string // the TestbedSummary, JSON
	FCT     string // the completed flows' FCT records (HPCC fct.txt)
	Trace   string // the control loop's telemetry CSV
}

// RunConfig configures Session.Run: one trace of flows under several
// policies in turn.
type RunConfig struct {
	// Policies are the policy specs (policy.ParseControl), run in this
	// order; Flag names the flag that gave them, for messages.
	Flag     string
	Policies []string
	// Scenario is the run's: the lab's fabric (Session.Scenario) with the
	// traffic's Gen and Description. Policies that train (acc) train on
	// it, tuned:DIR looks up its name, and Gen.Duration bounds the queue
	// figures' span (controller.WorkloadConfig.QueueWindow).
	Scenario scenario.Scenario
	// Flows are the trace, on the lab's fabric; FlowsFile names the flow
	// file they were read from ("" for generated traffic).
	Flows     []trace.Flow
	FlowsFile string
	// Seed is the policies' seed (and the simulator's, with CompareSim).
	Seed uint64
	// Params is the simulator that stands for the testbed
	// (experiment.TestbedParams) with the hosts' DCQCN constants, which the
	// lab's hosts get too.
	Params replay.Params
	// Interval is the control interval and Drain how long a run goes on
	// after the last flow's start, fabric ps.
	Interval, Drain int64
	// NoDelays turns off the hosts' emulated propagation delays.
	NoDelays bool
	// CompareSim also runs every policy in the simulator on the same
	// fabric and trace, and prints its figures beside the testbed's.
	CompareSim bool
	Agents     AgentsConfig
	Outputs    Outputs
	// Out receives the run's header, every policy's summary table and,
	// with several policies or CompareSim, their comparison.
	Out io.Writer
	Log *slog.Logger
}

// RunResult is what Session.Run did.
type RunResult struct {
	Results []*controller.WorkloadResult // one per policy, in order
	Wrote   []string                     // the output files written
}

// run is one Session.Run: what each policy's run (one) needs beyond its
// workload, and what it leaves for the comparison.
type run struct {
	s         *Session
	c         *RunConfig
	several   bool
	policies  []policy.Named
	simulated []experiment.ComparedRun // CompareSim's runs
	wrote     []string
	rt        *p4rt.Fabric
}

// Run plays c.Flows on the session's lab under each policy of c.Policies
// in turn (controller.RunPolicies, each from a fresh pipeline). Every
// policy's trace and last control step go to their files as it runs, and
// its FCT and summary files and summary table as it ends; with several
// policies or c.CompareSim the comparison follows. The result is nil if
// a policy's run failed.
func (s *Session) Run(ctx context.Context, c RunConfig) (*RunResult, error) {
	if err := c.Agents.Check(); err != nil {
		return nil, err
	}
	if c.Log == nil {
		c.Log = slog.New(slog.DiscardHandler)
	}
	r := &run{s: s, c: &c, several: len(c.Policies) > 1}
	if err := checkACCTrainable(c.Flag, c.Policies, c.FlowsFile, s.Spec); err != nil {
		return nil, err
	}
	runs, err := r.parsePolicies(ctx)
	if err != nil {
		return nil, err
	}
	rt, closeAll, err := p4rt.Connect(ctx, s.Lab, s.Plan, s.info, electionID)
	if err != nil {
		return nil, err
	}
	defer closeAll()
	r.rt = rt
	fmt.Fprintf(c.Out, "# lab %s: %d switches, %d hosts, scale %d; %d flows: %s\n\n",
		s.Plan.Lab, len(s.Plan.Switches), len(s.Plan.Hosts), s.Spec.Scale, len(c.Flows), c.Scenario.Description)
	w := controller.WorkloadConfig{Plan: s.Plan, Runtime: rt, Flows: c.Flows, Scale: float64(s.Spec.Scale), Interval: c.Interval, Drain: c.Drain,
		Host: hostConfig(c.Params.DCQCN, c.NoDelays), QueueWindow: c.Scenario.Gen.Duration}
	results, err := controller.RunPolicies(ctx, controller.PoliciesConfig{
		Workload: w, Policies: runs, Log: c.Log, Run: r.one, DrainWait: lab.QueueDrainTime(s.Lab.State(), s.Plan.Fabric),
		Reset: func(ctx context.Context, static []control.ECN) error {
			if err := rt.Program(ctx, s.devcfg, static); err != nil {
				return err
			}
			return s.Lab.SetQueues(ctx)
		},
	})
	if err != nil {
		return nil, err
	}
	res := &RunResult{Results: results, Wrote: r.wrote}
	if r.several || c.CompareSim {
		names := make([]string, len(r.policies))
		testbed := make([]experiment.ComparedRun, len(results))
		for i, res := range results {
			names[i], testbed[i] = r.policies[i].Name, experiment.ComparedRun{Summary: res.Summary.Summary, FCT: res.FCT}
		}
		return res, experiment.WriteTestbedComparison(c.Out, names, testbed, r.simulated)
	}
	return res, nil
}

// one runs policy name's workload w (RunPolicies' Run): its trace and last
// step go to their files, and its outputs are written and printed as it
// ends, with the simulator's run of it beside (CompareSim).
func (r *run) one(ctx context.Context, name string, w controller.WorkloadConfig) (*controller.WorkloadResult, error) {
	c := r.c
	last := controller.NewStepRecorder(r.s.Lab.Dir(), name, w.Plan.Fabric)
	w.OnStep = last.Record
	if c.Agents.Mode == controller.AgentsPerSwitch {
		a, err := r.perSwitchAgents(w.Policy, w.Static, w.Plan)
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
	if p := PolicyPath(c.Outputs.Trace, name, r.several); p != "" {
		err = r.write("trace-out", p, runIt)
	} else {
		err = runIt(nil)
	}
	last.Flush()
	if err != nil {
		return nil, fmt.Errorf("policy %s: %w", name, err)
	}
	res.Summary.SwitchSched = sched
	if p := PolicyPath(c.Outputs.FCT, name, r.several); p != "" {
		if err := r.write("fct-out", p, func(w io.Writer) error { return trace.WriteFCT(w, res.FCT) }); err != nil {
			return nil, err
		}
	}
	if p := PolicyPath(c.Outputs.Summary, name, r.several); p != "" {
		if err := r.write("summary-out", p, func(w io.Writer) error { return fileio.WriteJSON(w, res.Summary) }); err != nil {
			return nil, err
		}
	}
	fmt.Fprintf(c.Out, "## %s\n\n", name)
	if err := res.Summary.WriteTable(c.Out); err != nil {
		return nil, err
	}
	if c.CompareSim {
		np := r.policies[len(r.simulated)]
		sim, err := experiment.SimulateLikeTestbed(ctx, np, w.Plan.Fabric, c.Scenario, w.Flows, experiment.TestbedSim{Params: c.Params, Interval: c.Interval,
			Seed: c.Seed, Agents: c.Agents.Mode, RoundTimeout: c.Agents.RoundTimeout, MissLimit: c.Agents.MissLimit, Scale: w.Scale})
		if err != nil {
			return nil, fmt.Errorf("--compare-sim: %w", err)
		}
		r.simulated = append(r.simulated, experiment.ComparedRun{Summary: sim.Summary, FCT: sim.FCT})
	}
	return res, nil
}

// write writes the output file path through write, whole or not at all
// (fileio.WriteAtomic), and records it; errors name it by its flag.
func (r *run) write(flag, path string, write func(w io.Writer) error) error {
	if err := fileio.WriteAtomic(path, write); err != nil {
		return fmt.Errorf("--%s: %w", flag, err)
	}
	r.wrote = append(r.wrote, path)
	return nil
}

// switchSched puts the switches' threads back at the lab's real-time
// priority (testbed up --realtime; threads made since up inherit it, so
// this changes none unless someone else did) and names their scheduling
// as it is now, for the summary's switch_sched.
func (r *run) switchSched() (string, error) {
	lb, log := r.s.Lab, r.c.Log
	n, err := lb.ApplyRealtime()
	if err != nil {
		return "", fmt.Errorf("the lab's --realtime %d: %w", lb.State().Realtime, err)
	}
	if n > 0 {
		log.Info("switch threads set to the lab's real-time priority again", "threads", n, "sched", lab.SchedName(lb.State().Realtime))
	}
	sched, threads, err := lb.SwitchSched()
	if err != nil {
		return "", err
	}
	log.Debug("switch threads", "sched", sched, "threads", threads)
	return sched, nil
}
