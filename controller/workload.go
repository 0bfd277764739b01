package controller

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net/netip"
	"slices"
	"sync"
	"time"

	"graphcc/control"
	"graphcc/controller/lab"
	"graphcc/dcqcn"
	"graphcc/hostgen"
	"graphcc/metrics"
	"graphcc/topo"
	"graphcc/trace"
)

// WorkloadConfig configures RunWorkload: a trace of flows on the testbed's
// hosts under one ECN policy.
type WorkloadConfig struct {
	Plan    *lab.Plan
	Runtime Fabric
	Policy  control.Policy // nil: the static settings stay
	Static  []control.ECN  // the settings at the start, and after a failure
	Flows   []trace.Flow   // fabric times; they need not start at 0 (flow files start at 2 s)
	// QPBase is the queue pair of the first flow (hostgen.Schedule): runs
	// that follow one another on a lab take disjoint ranges, so that frames
	// a switch still holds from the last run are foreign to this one.
	QPBase uint32
	// Scale is the testbed's factor between real and fabric time (the
	// lab's, lab.DefaultScale).
	Scale float64
	// Interval is the control interval Δt, fabric ps; 0: control.DefaultInterval.
	Interval int64
	// QueueWindow, if positive, ends the queue figures' span that long
	// after the first flow's start (the arrival window of generated
	// traffic, as eval's and the simulator's); 0: the whole run.
	QueueWindow int64
	// Drain bounds the run, in fabric time after the last flow's start;
	// flows not finished by then are reported as incomplete. 0: 20 ms.
	Drain int64
	// Host is applied to every host's configuration (window, DCQCN, CNP
	// interval…) after the plan's addresses are filled in; nil keeps
	// hostgen's defaults, which are the simulator's.
	Host func(*hostgen.HostConfig)
	// Trace, if set, receives the control loop's telemetry CSV.
	Trace io.Writer
	// OnStep is the control loop's LoopConfig.OnStep.
	OnStep func(t *control.Telemetry, ecn []control.ECN)
	// Agents, if set, runs Policy's step as one agent per switch (the
	// agents read and write the switches; the loop shadows them on
	// Agents' Fabric, and Runtime is not used during the run).
	Agents Agents
}

// WorkloadResult is what RunWorkload measured.
type WorkloadResult struct {
	Summary TestbedSummary
	FCT     []trace.FCT // completed flows, by start time then source
	Hosts   []hostgen.Stats
	Loop    *LoopStats
}

// TestbedSummary is the summary of a testbed run: the simulator's
// (metrics.Summary) with the keys the testbed measures, each meaning what
// metrics.SummaryKeys says, and the keys the testbed alone writes (the
// control loop's timings, the per-switch agents'). Its JSON leaves out the
// keys the testbed does not measure (metrics.OmitUnmeasured): the
// instantaneous queue (queue_bytes_mean, _p99: BMv2 cannot report it
// through P4Runtime), pfc_pauses (BMv2 has no PFC), drops and events
// (the simulator's events; the testbed's steps are control_steps). Its
// queue is the queue feature (queue_feature_bytes_mean and _p99: the mean
// enqueue depth, control.PortSample.QueueFeature, of every switch port at
// every step of the queue span); sim_seconds is fabric time.
type TestbedSummary struct {
	metrics.Summary
	Scale        float64 `json:"scale"`
	ControlSteps int     `json:"control_steps"`
	LateSteps    int     `json:"control_steps_late"`
	// IntervalUSMean and IntervalUSP99 are the fabric time between
	// successive counter reads, µs (LoopStats.Intervals): a diagnostic of
	// the loop's cadence. The policies divide by the nominal interval.
	IntervalUSMean float64 `json:"control_interval_measured_us_mean"`
	IntervalUSP99  float64 `json:"control_interval_measured_us_p99"`
	StepMsMean     float64 `json:"control_step_ms_mean"`
	StepMsP99      float64 `json:"control_step_ms_p99"`
	ReadMsMean     float64 `json:"control_read_ms_mean"`
	DecideMsMean   float64 `json:"control_decide_ms_mean"`
	WriteMsMean    float64 `json:"control_write_ms_mean"`
	ECNWrites      int     `json:"ecn_entries_written"`
	Incomplete     int     `json:"incomplete"`
	Retransmitted  int64   `json:"retransmitted_bytes"`
	// SwitchSched is the switches' threads' scheduling as the run began
	// (lab.Lab.SwitchSched: "fifo:10" with testbed up --realtime 10,
	// "other" without); empty where nobody read it.
	SwitchSched string `json:"switch_sched,omitempty"`
	// Agents is how the step ran: AgentsCentral or AgentsPerSwitch; the
	// keys after it are the per-switch agents' (AgentStats), absent from a
	// central run's JSON.
	Agents             string  `json:"agents"`
	AgentProcesses     int     `json:"agent_processes,omitempty"`
	AgentFailures      int     `json:"agent_failures,omitempty"`
	AgentSteps         int64   `json:"agent_steps,omitempty"`
	AgentMessages      int64   `json:"agent_messages,omitempty"`
	AgentMessageBytes  int64   `json:"agent_message_bytes,omitempty"`
	DecisionMismatches *int64  `json:"decision_mismatches,omitempty"`
	LateMessages       *int64  `json:"late_messages,omitempty"`
	StaleMessages      int64   `json:"stale_messages,omitempty"`
	AgentStaticPorts   int64   `json:"fallback_port_steps,omitempty"`
	AgentRoundMsMean   float64 `json:"agent_round_ms_mean,omitempty"`
	AgentRoundMsP99    float64 `json:"agent_round_ms_p99,omitempty"`
	// …ByRound[k-1]: round k's alone (round 1 includes waiting for the
	// slowest neighbour's counter read).
	AgentRoundMsMeanByRound []float64 `json:"agent_round_ms_mean_by_round,omitempty"`
	AgentRoundMsP99ByRound  []float64 `json:"agent_round_ms_p99_by_round,omitempty"`
	AgentRoundsMsMean       float64   `json:"agent_exchange_ms_mean,omitempty"`
	AgentRoundsMsP99        float64   `json:"agent_exchange_ms_p99,omitempty"`
	// Where the rounds' time goes (AgentStats: Start, Read, Send, OneWay,
	// Handoff), mean and p99.
	AgentStartMs   [2]float64 `json:"agent_start_late_ms,omitzero"`
	AgentReadMs    [2]float64 `json:"agent_read_ms,omitzero"`
	AgentSendMs    [2]float64 `json:"agent_send_ms,omitzero"`
	AgentOneWayMs  [2]float64 `json:"agent_oneway_ms,omitzero"`
	AgentHandoffMs [2]float64 `json:"agent_handoff_ms,omitzero"`
	// AgentOneWayMsByRound[k-1]: AgentOneWayMs of round k's messages.
	AgentOneWayMsByRound [][2]float64 `json:"agent_oneway_ms_by_round,omitempty"`

	// With a model with a host head (absent otherwise): the hosts whose
	// DCQCN constants a leaf's model chose differ from the central step's,
	// over the steps (host-steps; decision_mismatches stays the switch
	// ports'), and the mean and p99 of AgentStats.HostDelay (a leaf's
	// readout to its hosts' constants in force at the controller) and
	// HostHop (the report's writing to the same).
	HostDecisionMismatches *int64     `json:"host_decision_mismatches,omitempty"`
	AgentHostDelayMs       [2]float64 `json:"agent_host_delay_ms,omitzero"`
	AgentHostHopMs         [2]float64 `json:"agent_host_hop_ms,omitzero"`
}

// testbedSummaryJSON is TestbedSummary without its methods, for
// MarshalJSON.
type testbedSummaryJSON TestbedSummary

// MarshalJSON writes s's keys but those the testbed does not measure
// (metrics.OmitUnmeasured).
func (s TestbedSummary) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(testbedSummaryJSON(s)); err != nil {
		return nil, err
	}
	return metrics.OmitUnmeasured(b.Bytes(), metrics.Testbed)
}

// RunWorkload runs cfg.Flows on the testbed's hosts (every host in its
// namespace: a hostgen sender and receiver on its NIC) while RunLoop
// drives cfg.Policy, until every flow has finished or the drain time has
// passed, and summarizes the flows as the simulator does. A host that
// fails ends the run at once, with its error, and puts the switches back
// on the static settings. Hosts and loop share one fabric clock, started
// just before the first flow so the run does not wait out the trace's
// start offset.
func RunWorkload(ctx context.Context, c WorkloadConfig) (*WorkloadResult, error) {
	if err := c.fillDefaults(); err != nil {
		return nil, err
	}
	f := c.Plan.Fabric
	sched, err := hostgen.Schedule(f, c.Flows, c.QPBase)
	if err != nil {
		return nil, fmt.Errorf("workload: %w", err)
	}
	first, last := startSpan(c.Flows)
	hosts, err := newHosts(c.Plan, c.hostConfig())
	if err != nil {
		return nil, fmt.Errorf("workload: %w", err)
	}
	defer func() {
		for _, h := range hosts {
			h.Close()
		}
	}()
	for _, h := range hosts {
		if err := h.Open(); err != nil { // every socket reads before any host sends
			return nil, fmt.Errorf("workload: %w", err)
		}
	}
	clock, err := leadClock(first, c.Scale)
	if err != nil {
		return nil, fmt.Errorf("workload: %w", err)
	}
	wall := time.Now()
	rt, lh, err := c.startAgents(ctx, clock, c.hostSet(hosts, clock))
	if err != nil {
		return nil, err
	}
	loop, err := c.run(ctx, rt, hosts, sched, clock, clock.At(last+c.Drain), lh)
	var agents AgentStats
	if c.Agents != nil {
		var aerr error
		agents, aerr = c.Agents.Stop()
		err = errors.Join(err, aerr)
	}
	if err != nil {
		return nil, fmt.Errorf("workload: %w", err)
	}
	r := RunRecord{Flows: len(c.Flows), Loop: loop, Interval: c.Interval, First: first, End: clock.Now(),
		Wall: time.Since(wall), Scale: c.Scale, HostHead: lh != nil}
	r.FCT, r.Hosts = collect(hosts)
	if c.Agents != nil {
		r.Agents = &agents
	}
	res := &WorkloadResult{FCT: r.FCT, Hosts: r.Hosts, Loop: loop, Summary: Summarize(r)}
	res.Summary.PeakRSSBytes = metrics.PeakRSS()
	return res, nil
}

// RunRecord is what a testbed run measured, from which Summarize builds
// its summary: RunWorkload's, or a test's from a simulated run's records.
type RunRecord struct {
	Flows      int             // flows in the trace
	FCT        []trace.FCT     // the completed flows' records
	Hosts      []hostgen.Stats // every host's counts
	Loop       *LoopStats      // the control loop's
	Interval   int64           // the control interval, fabric ps
	First, End int64           // fabric times of the first flow's start and of the run's end
	Wall       time.Duration   // the run's real time
	Scale      float64         // real time per fabric time
	// Agents are the per-switch agents' counts (nil: the central step ran);
	// HostHead, with a model with a host head.
	Agents   *AgentStats
	HostHead bool
}

// Summarize builds the summary of a testbed run from what it measured:
// the FCT figures as the simulator takes them (metrics.Summarize), the
// hosts' CE marks and retransmissions, the control loop's figures and the
// agents'. PeakRSSBytes is left to the caller, whose process it measures.
func Summarize(r RunRecord) TestbedSummary {
	s := TestbedSummary{Summary: metrics.Summarize(r.Flows, r.FCT, nil)}
	for _, h := range r.Hosts {
		s.ECNMarkedPackets += h.CEMarked
		s.Retransmitted += h.Retransmitted
	}
	s.Incomplete = r.Flows - len(r.FCT)
	s.SimSeconds = float64(r.End-r.First) / float64(topo.Second)
	s.WallSeconds = r.Wall.Seconds()
	s.Scale = r.Scale
	if r.Loop != nil {
		s.addLoop(r.Loop, r.Interval)
	}
	s.Agents = AgentsCentral
	if r.Agents != nil {
		s.addAgents(*r.Agents, r.HostHead)
	}
	return s
}

// loopHosts is where the control loop applies the central step's hosts'
// constants: the run's hosts, or with per-switch agents their shadow, which
// compares them with the agents' (the agents' go to the hosts); Start are
// the constants the hosts start with.
type loopHosts struct {
	Hosts
	Start []control.HostParams
}

// startAgents returns the fabric and the hosts the control loop drives: the
// switches and hs (nil if the policy does not decide the hosts), or with
// c.Agents the agents' shadow for both, the agents started and handed hs.
func (c *WorkloadConfig) startAgents(ctx context.Context, clock *hostgen.Clock, hs *hostSet) (Fabric, *loopHosts, error) {
	var lh *loopHosts
	if hs != nil {
		lh = &loopHosts{Hosts: hs, Start: slices.Clone(hs.cur)}
	}
	if c.Agents == nil {
		return c.Runtime, lh, nil
	}
	s := AgentStart{Clock: clock, Epoch: clock.Now(), Interval: c.Interval}
	if hs != nil {
		s.Hosts, s.HostBase = hs, slices.Clone(hs.cur)
	}
	rt, err := c.Agents.Start(ctx, s)
	if err != nil {
		return nil, nil, fmt.Errorf("workload: agents: %w", errors.Join(err, stopAgents(c.Agents)))
	}
	if hs != nil {
		sh, ok := rt.(Hosts)
		if !ok {
			err := fmt.Errorf("the policy decides the hosts' DCQCN constants, but the agents' fabric %T cannot take them", rt)
			return nil, nil, fmt.Errorf("workload: agents: %w", errors.Join(err, stopAgents(c.Agents)))
		}
		lh.Hosts = sh
	}
	return rt, lh, nil
}

// fillDefaults sets the zero Interval and Drain to their defaults and
// refuses a run without flows or a positive scale.
func (c *WorkloadConfig) fillDefaults() error {
	if c.Interval == 0 {
		c.Interval = control.DefaultInterval
	}
	if c.Drain == 0 {
		c.Drain = 20 * topo.Millisecond
	}
	if c.Scale <= 0 {
		return fmt.Errorf("workload: scale %v is not positive", c.Scale)
	}
	if len(c.Flows) == 0 {
		return errors.New("workload: no flows")
	}
	if hp, ok := control.HostParamsOf(c.Policy); ok {
		if err := hp.Validate(); err != nil {
			return fmt.Errorf("workload: policy: %w", err)
		}
	}
	return nil
}

// startSpan returns the earliest and the latest start of flows, which is
// not empty.
func startSpan(flows []trace.Flow) (first, last int64) {
	first, last = flows[0].Start, flows[0].Start
	for _, fl := range flows {
		first, last = min(first, fl.Start), max(last, fl.Start)
	}
	return first, last
}

// newHosts makes a hostgen host for each host of the plan, each knowing
// every other's address; configure, if set, adjusts each configuration
// after the plan's addresses are filled in.
func newHosts(p *lab.Plan, configure func(*hostgen.HostConfig)) ([]*hostgen.Host, error) {
	peers := make(map[topo.NodeID]netip.Addr, len(p.Hosts))
	for _, h := range p.Hosts {
		peers[h.Node] = h.IP
	}
	hosts := make([]*hostgen.Host, len(p.Hosts))
	for i, hp := range p.Hosts {
		hc := hostgen.HostConfig{
			Node: hp.Node, Fabric: p.Fabric, Netns: hp.Netns, Iface: hp.Iface, MAC: hp.MAC,
			FabricMAC: lab.FabricMAC, IP: hp.IP, Peers: peers,
		}
		if configure != nil {
			configure(&hc)
		}
		h, err := hostgen.NewHost(hc)
		if err != nil {
			return nil, err
		}
		hosts[i] = h
	}
	return hosts, nil
}

// hostConfig returns what RunWorkload applies to every host's
// configuration: c.Host, then the hosts' DCQCN constants of c.Policy if
// it sets them (control.HostParamsOf), for the host's line rate.
func (c *WorkloadConfig) hostConfig() func(*hostgen.HostConfig) {
	hp, ok := control.HostParamsOf(c.Policy)
	if !ok {
		return c.Host
	}
	host := c.Host
	return func(hc *hostgen.HostConfig) {
		if host != nil {
			host(hc)
		}
		rate := hc.Rate()
		d := hc.DCQCN
		if d == (dcqcn.Params{}) {
			d = dcqcn.DefaultParams(rate)
		}
		hc.DCQCN = hp.Apply(d, rate)
	}
}

// hostSet is the testbed's Hosts: the hostgen hosts of a workload run,
// whose DCQCN constants a policy sets every interval.
type hostSet struct {
	hosts []*hostgen.Host
	ports []topo.PortID        // each host's NIC port
	base  []dcqcn.Params       // each host's constants at the start (its line rate's)
	rate  []int64              // each host's line rate
	cur   []control.HostParams // in force, by topo.PortID
	clock *hostgen.Clock
}

// hostSet returns the Hosts of hosts on clock if c.Policy decides the
// hosts' constants every interval (control.HostDeciderOf), else nil. The
// hosts start with the constants of their configuration (hostConfig).
func (c *WorkloadConfig) hostSet(hosts []*hostgen.Host, clock *hostgen.Clock) *hostSet {
	if _, ok := control.HostDeciderOf(c.Policy); !ok {
		return nil
	}
	f := c.Plan.Fabric
	hs := &hostSet{hosts: hosts, clock: clock, cur: make([]control.HostParams, len(f.Ports))}
	for _, h := range hosts {
		cfg := h.Config()
		p := f.HostPort(cfg.Node)
		hs.ports = append(hs.ports, p)
		hs.base = append(hs.base, cfg.DCQCN)
		hs.rate = append(hs.rate, cfg.LineRate)
		hs.cur[p] = control.HostParamsAt(cfg.DCQCN, cfg.LineRate)
	}
	return hs
}

// SetDCQCN sets the constants of every host whose constants changed, from
// the clock's present time on (hostgen.Host.SetDCQCN).
func (hs *hostSet) SetDCQCN(_ context.Context, hosts []control.HostParams) error {
	for i, h := range hs.hosts {
		p := hs.ports[i]
		if hosts[p] == hs.cur[p] {
			continue
		}
		if err := h.SetDCQCN(hosts[p].Apply(hs.base[i], hs.rate[i]), hs.clock.Now()); err != nil {
			return err
		}
		hs.cur[p] = hosts[p]
	}
	return nil
}

// leadClock returns the run's fabric clock at scale: fabric time
// first-lead is now, so the first flow starts lead into the run, after the
// loop's first read.
func leadClock(first int64, scale float64) (*hostgen.Clock, error) {
	const lead = 10 * topo.Microsecond
	probe, err := hostgen.NewClock(time.Now(), scale)
	if err != nil {
		return nil, err
	}
	return hostgen.NewClock(time.Now().Add(-probe.Real(first-lead)), scale)
}

// run runs the hosts on sched and the control loop on clock until every
// host is done, one fails, the loop fails, ctx ends or deadline passes. A
// host's failure puts the switches back on the static settings.
func (c *WorkloadConfig) run(ctx context.Context, rt Fabric, hosts []*hostgen.Host, sched []hostgen.Flow, clock *hostgen.Clock, deadline time.Time, lh *loopHosts) (*LoopStats, error) {
	runCtx, stopRun := context.WithCancel(ctx)
	defer stopRun()
	runCtx, cancelDeadline := context.WithDeadline(runCtx, deadline)
	defer cancelDeadline()

	// Every goroutine started here is joined by wg.Wait below, before run
	// returns.
	var wg sync.WaitGroup
	hostErr := make([]error, len(hosts))
	for i, h := range hosts {
		wg.Go(func() {
			hostErr[i] = h.Run(runCtx, sched, clock)
			if hostErr[i] != nil {
				stopRun() // a host that failed would leave its flows unfinished until the deadline
			}
		})
	}
	// End the run once every host is done.
	wg.Go(func() {
		for _, h := range hosts {
			select {
			case <-h.Done():
			case <-runCtx.Done():
				return
			}
		}
		stopRun()
	})
	lc := LoopConfig{
		Fabric: c.Plan.Fabric, Runtime: rt, Policy: c.Policy, Clock: clock, Interval: c.Interval,
		Static: c.Static, Trace: c.Trace, OnStep: c.OnStep,
	}
	if first, _ := startSpan(c.Flows); c.QueueWindow > 0 && first <= math.MaxInt64-c.QueueWindow {
		lc.QueueUntil = first + c.QueueWindow
	}
	if al, ok := rt.(AgentLoop); ok {
		lc.Policy = al.LoopPolicy(c.Policy)
	}
	if lh != nil {
		lc.Hosts, lc.HostStart = lh.Hosts, lh.Start
	}
	loop, loopErr := RunLoop(runCtx, lc)
	if loopErr != nil {
		stopRun()
	}
	wg.Wait()
	if err := errors.Join(hostErr...); err != nil && loopErr == nil {
		// The loop took the host's end of the run for a normal one: put
		// the switches back on the static settings, as after a switch
		// failure.
		loopErr = restoreStatic(ctx, rt, c.Static, 0)
	}
	if err := errors.Join(append([]error{loopErr}, hostErr...)...); err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, context.Cause(ctx)
	}
	return loop, nil
}

// collect gathers the hosts' FCT records, sorted by start time then
// source, and their statistics.
func collect(hosts []*hostgen.Host) (fct []trace.FCT, stats []hostgen.Stats) {
	for _, h := range hosts {
		fct = append(fct, h.FCTs()...)
		stats = append(stats, h.Stats())
	}
	slices.SortStableFunc(fct, func(a, b trace.FCT) int {
		return cmp.Or(cmp.Compare(a.Start, b.Start), cmp.Compare(a.Src, b.Src), cmp.Compare(a.SPort, b.SPort))
	})
	return fct, stats
}

// addLoop fills in the control loop's figures: its steps, timings,
// settings and queue feature, the steps spanning interval each.
func (s *TestbedSummary) addLoop(loop *LoopStats, interval int64) {
	s.ControlSteps, s.LateSteps, s.ECNWrites = loop.Steps, loop.Late, loop.Written
	s.ECNSettings = loop.Settings
	s.StepMsMean, s.StepMsP99 = msMean(loop.Step), msPercentile(loop.Step, 0.99)
	s.ReadMsMean, s.DecideMsMean, s.WriteMsMean = msMean(loop.Read), msMean(loop.Decide), msMean(loop.Write)
	if len(loop.Intervals) > 0 {
		mean, p99 := metrics.MeanP99(loop.Intervals)
		s.IntervalUSMean, s.IntervalUSP99 = mean/float64(topo.Microsecond), p99/float64(topo.Microsecond)
	}
	if len(loop.Queue) > 0 {
		s.QueueFeatureMean, s.QueueFeatureP99 = metrics.MeanP99(loop.Queue)
		s.QueueSeconds = float64(loop.QueueSteps) * float64(interval) / float64(topo.Second) // the fabric time the sampled steps span
	}
}

// addAgents fills in the per-switch agents' figures, with hosts those of
// a model with a host head.
func (s *TestbedSummary) addAgents(a AgentStats, hosts bool) {
	s.Agents = AgentsPerSwitch
	if hosts {
		s.HostDecisionMismatches = &a.HostMismatches
		s.AgentHostDelayMs = [2]float64{msMean(a.HostDelay), msPercentile(a.HostDelay, 0.99)}
		s.AgentHostHopMs = [2]float64{msMean(a.HostHop), msPercentile(a.HostHop, 0.99)}
	}
	s.AgentProcesses, s.AgentFailures, s.AgentSteps = a.Processes, a.Failed, a.Steps
	s.AgentMessages, s.AgentMessageBytes = a.Messages, a.Bytes
	s.DecisionMismatches, s.LateMessages = &a.Mismatches, &a.Late
	s.StaleMessages, s.AgentStaticPorts = a.Stale, a.StaticPort
	s.AgentRoundMsMean, s.AgentRoundMsP99 = msMean(a.Round), msPercentile(a.Round, 0.99)
	s.AgentRoundsMsMean, s.AgentRoundsMsP99 = msMean(a.Exchange), msPercentile(a.Exchange, 0.99)
	for _, r := range a.ByRound {
		s.AgentRoundMsMeanByRound = append(s.AgentRoundMsMeanByRound, msMean(r))
		s.AgentRoundMsP99ByRound = append(s.AgentRoundMsP99ByRound, msPercentile(r, 0.99))
	}
	for _, f := range []struct {
		dst *[2]float64
		ds  []time.Duration
	}{{&s.AgentStartMs, a.Start}, {&s.AgentReadMs, a.Read}, {&s.AgentSendMs, a.Send}, {&s.AgentOneWayMs, a.OneWay}, {&s.AgentHandoffMs, a.Handoff}} {
		*f.dst = [2]float64{msMean(f.ds), msPercentile(f.ds, 0.99)}
	}
	for _, r := range a.OneWayByRound {
		s.AgentOneWayMsByRound = append(s.AgentOneWayMsByRound, [2]float64{msMean(r), msPercentile(r, 0.99)})
	}
}

// stopAgents stops agents after a failed Start, keeping only its error.
func stopAgents(a Agents) error {
	_, err := a.Stop()
	return err
}

func msMean(d []time.Duration) float64 {
	if len(d) == 0 {
		return 0
	}
	var sum time.Duration
	for _, v := range d {
		sum += v
	}
	return float64(sum) / float64(len(d)) / float64(time.Millisecond)
}

func msPercentile(d []time.Duration, q float64) float64 {
	if len(d) == 0 {
		return 0
	}
	s := slices.Sorted(slices.Values(d))
	return float64(s[metrics.PercentileIndex(len(s), q)]) / float64(time.Millisecond)
}
