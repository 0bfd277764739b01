package control

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"slices"

	"graphcc/topo"
)

// An Actuator puts ECN settings in force on a fabric: the simulator sets its
// ports' marking, the testbed writes its switches' table entries.
type Actuator interface {
	// ApplyECN puts ecn (indexed by topo.PortID; only the entries of agent
	// ports matter) in force for the next interval.
	ApplyECN(ctx context.Context, ecn []ECN) error
}

// LoopConfig configures a Loop.
type LoopConfig struct {
	Fabric *topo.Fabric
	// Policy chooses the settings; nil keeps the starting settings, and Step
	// then only records the telemetry.
	Policy Policy
	// ECN are the settings in force at the start, indexed by topo.PortID;
	// nil means StaticSettings(Fabric). The loop keeps its own copy.
	ECN []ECN
	// Apply puts the policy's settings in force; it may be nil only without
	// a Policy.
	Apply Actuator
	// Trace, if not nil, receives the telemetry CSV: TraceHeader, then one
	// row per port per step (WriteTraceRows).
	Trace io.Writer
	// Hosts are the hosts' DCQCN constants in force at the start, indexed
	// by topo.PortID (only the hosts' NIC ports matter: HostPorts); the
	// loop keeps its own copy. They matter only with a policy that decides
	// them (HostDeciderOf), whose actuator must then be a HostActuator. nil
	// means the policy's own (HostParamsOf) or else DefaultHostParams on
	// every host, what both fabrics run by default.
	Hosts []HostParams
	// QueueUntil, if positive, ends the queue samples (QueueFeatures,
	// QueueBytes, QueueSteps) after the step at that fabric time, ps; 0
	// samples every step.
	QueueUntil int64
	// Ports are the agent ports the loop decides, checks, counts and
	// samples, in increasing topo.PortID; nil means Fabric.Agents(), every
	// switch egress port. A per-switch agent's loop holds its own
	// switch's egress ports: its telemetry and settings are still indexed
	// by topo.PortID over the whole fabric, and only its ports' entries
	// matter.
	Ports []topo.PortID
}

// Loop is the one control step of the design, run by both fabrics: every
// control interval the fabric hands Step the telemetry of the interval that
// just ended, and the loop records it, runs the policy, checks and applies
// the settings the agents chose, and counts them. The simulator calls Step
// from its clock event, the testbed's controller from its timer; only how
// they obtain telemetry and apply settings differs.
//
// A Loop is not safe for concurrent use. Without a trace, Step allocates
// only to grow its queue-feature samples and to count a setting it has not
// counted before (TestLoopStepAllocs).
type Loop struct {
	f      *topo.Fabric
	policy Policy
	apply  Actuator
	agents []topo.PortID
	ecn    []ECN
	trace  *bufio.Writer

	// with a HostDecider: the hosts' constants (by topo.PortID), their
	// ports, the decider and the actuator that applies them
	hosts     []HostParams
	hostPorts []topo.PortID
	decider   HostDecider
	applyHost HostActuator

	until int64

	steps      int
	settings   SettingCounter
	queue      []float64
	queueBytes []int64
	queueSteps int
}

// NewLoop checks c and returns a loop ready for its first Step. It writes
// the trace's header line.
func NewLoop(c LoopConfig) (*Loop, error) {
	if c.Fabric == nil {
		return nil, errors.New("control: loop has no fabric")
	}
	if c.Policy != nil && c.Apply == nil {
		return nil, errors.New("control: loop has a policy but no actuator")
	}
	l := &Loop{f: c.Fabric, policy: c.Policy, apply: c.Apply, agents: c.Fabric.Agents(), until: c.QueueUntil}
	if c.Ports != nil {
		if err := checkPorts(c.Fabric, c.Ports); err != nil {
			return nil, err
		}
		l.agents = slices.Clone(c.Ports)
	}
	switch {
	case c.ECN == nil:
		l.ecn = StaticSettings(c.Fabric)
	case len(c.ECN) != len(c.Fabric.Ports):
		return nil, fmt.Errorf("control: %d ECN settings for %d ports", len(c.ECN), len(c.Fabric.Ports))
	default:
		l.ecn = slices.Clone(c.ECN)
	}
	for _, p := range l.agents {
		if err := l.ecn[p].Validate(); err != nil {
			return nil, fmt.Errorf("control: starting setting of %s: %w", portName(c.Fabric, p), err)
		}
	}
	if err := l.initHosts(c); err != nil {
		return nil, err
	}
	if c.Trace != nil {
		l.trace = bufio.NewWriter(c.Trace)
		if _, err := l.trace.WriteString(TraceHeader + "\n"); err != nil {
			return nil, fmt.Errorf("control: trace: %w", err)
		}
	}
	return l, nil
}

// checkPorts refuses ports that are not agent ports of f in increasing
// order.
func checkPorts(f *topo.Fabric, ports []topo.PortID) error {
	for i, p := range ports {
		switch {
		case p < 0 || int(p) >= len(f.Ports) || !f.Nodes[f.Ports[p].Src].Switch:
			return fmt.Errorf("control: loop port %d is not a switch egress port of the fabric", p)
		case i > 0 && p <= ports[i-1]:
			return fmt.Errorf("control: loop port %d after port %d, want increasing ports", p, ports[i-1])
		}
	}
	return nil
}

// initHosts sets up the hosts' constants of a loop whose policy decides
// them.
func (l *Loop) initHosts(c LoopConfig) error {
	d, ok := HostDeciderOf(c.Policy)
	if !ok {
		return nil
	}
	a, ok := c.Apply.(HostActuator)
	if !ok {
		return errors.New("control: the policy sets the hosts' DCQCN constants, but the fabric cannot apply them")
	}
	l.decider, l.applyHost, l.hostPorts = d, a, HostPorts(c.Fabric)
	switch {
	case c.Hosts == nil:
		h, ok := HostParamsOf(c.Policy)
		if !ok {
			h = DefaultHostParams()
		}
		l.hosts = make([]HostParams, len(c.Fabric.Ports))
		for _, p := range l.hostPorts {
			l.hosts[p] = h
		}
	case len(c.Hosts) != len(c.Fabric.Ports):
		return fmt.Errorf("control: %d hosts' DCQCN constants for %d ports", len(c.Hosts), len(c.Fabric.Ports))
	default:
		l.hosts = slices.Clone(c.Hosts)
	}
	for _, p := range l.hostPorts {
		if err := l.hosts[p].Validate(); err != nil {
			return fmt.Errorf("control: starting constants of %s: %w", portName(c.Fabric, p), err)
		}
	}
	return nil
}

// Step runs one control step on t, the telemetry of the interval that ended
// at t.Now. It writes t's trace rows with the settings that were in force
// during that interval, records the agents' queue features, then (with a
// policy) lets the policy choose the next interval's settings (and, with a
// HostDecider, the hosts' DCQCN constants), checks every agent's setting
// and every host's constants, applies them through the actuator (the ECN
// settings first) and, once applied, counts the settings. An invalid
// setting or a failed apply ends the step with an error naming the port or
// wrapping the actuator's; the settings the loop reports (ECN, Hosts) are
// then the rejected ones, and the caller decides what the fabric falls back
// to. Nothing is applied if any setting is invalid.
func (l *Loop) Step(ctx context.Context, t *Telemetry) error {
	l.Observe(t)
	if l.policy == nil {
		return nil
	}
	l.policy.Decide(t, l.ecn)
	if l.decider != nil {
		l.decider.DecideHosts(t, l.hosts)
	}
	return l.commit(ctx, t.Now)
}

// Observe is the first half of Step, for a fabric whose agents decide
// over time rather than within the step (the simulator's per-switch agents
// exchanging messages as packets, a testbed switch's agent exchanging them
// with its neighbours'): it writes t's trace rows with the settings in
// force, records the agents' queue samples up to LoopConfig.QueueUntil and
// counts the step. Commit is the second half.
func (l *Loop) Observe(t *Telemetry) {
	if l.trace != nil {
		WriteTraceRows(l.trace, l.f, t.Now, t.Ports, l.ecn)
	}
	if l.until <= 0 || t.Now <= l.until {
		for _, p := range l.agents {
			l.queue = append(l.queue, t.Ports[p].QueueFeature())
			l.queueBytes = append(l.queueBytes, t.Ports[p].QueueBytes)
		}
		l.queueSteps++
	}
	l.steps++
}

// Commit is the second half of Step after Observe, at fabric time now: it
// lets write put the agents' decision into the loop's settings (ecn by
// topo.PortID, which hold the settings in force; hosts, with a
// HostDecider, else nil), then checks, applies and counts them as Step
// does. The loop must have an actuator; its policy, if any, is not run.
func (l *Loop) Commit(ctx context.Context, now int64, write func(ecn []ECN, hosts []HostParams)) error {
	if l.apply == nil {
		return errors.New("control: commit on a loop without an actuator")
	}
	write(l.ecn, l.hosts)
	return l.commit(ctx, now)
}

// commit checks, applies and counts the settings the policy wrote.
func (l *Loop) commit(ctx context.Context, now int64) error {
	if err := l.check(now); err != nil {
		return err
	}
	if err := l.apply.ApplyECN(ctx, l.ecn); err != nil {
		return fmt.Errorf("control: step %d: %w", l.steps, err)
	}
	if l.decider != nil {
		if err := l.applyHost.ApplyHosts(ctx, l.hosts); err != nil {
			return fmt.Errorf("control: step %d: hosts' DCQCN: %w", l.steps, err)
		}
	}
	for _, p := range l.agents {
		l.settings.Add(l.ecn[p], l.f.Ports[p].Rate)
	}
	return nil
}

// check validates every agent's setting and every host's constants after
// the policy's decision at now.
func (l *Loop) check(now int64) error {
	for _, p := range l.agents {
		if err := l.ecn[p].Validate(); err != nil {
			return fmt.Errorf("control: step %d at %s: policy set %s: %w",
				l.steps, topo.FormatDuration(now), portName(l.f, p), err)
		}
	}
	for _, p := range l.hostPorts {
		if err := l.hosts[p].Validate(); err != nil {
			return fmt.Errorf("control: step %d at %s: policy set the DCQCN constants of %s: %w",
				l.steps, topo.FormatDuration(now), portName(l.f, p), err)
		}
	}
	return nil
}

// Flush writes out what the trace has buffered; call it once the fabric is
// done stepping, on every way out.
func (l *Loop) Flush() error {
	if l.trace == nil {
		return nil
	}
	if err := l.trace.Flush(); err != nil {
		return fmt.Errorf("control: trace: %w", err)
	}
	return nil
}

// ECN returns the settings the loop holds, indexed by topo.PortID: after a
// successful Step, those in force for the next interval. The slice is the
// loop's own: read it, do not keep or change it.
func (l *Loop) ECN() []ECN { return l.ecn }

// Hosts returns the hosts' DCQCN constants the loop holds, indexed by
// topo.PortID, with a policy that decides them (HostDeciderOf): after a
// successful Step, those in force for the next interval; nil otherwise.
// The slice is the loop's own: read it, do not keep or change it.
func (l *Loop) Hosts() []HostParams { return l.hosts }

// Steps returns the number of steps so far (Step or Observe calls).
func (l *Loop) Steps() int { return l.steps }

// Settings returns the settings the policy (or Commit's writer) chose and
// the fabric applied, counted per agent port-step (none without a commit).
func (l *Loop) Settings() []SettingUse { return l.settings.Uses() }

// QueueFeatures returns the queue feature (PortSample.QueueFeature, bytes)
// of every agent port at every step up to LoopConfig.QueueUntil, step by
// step in agent order. The slice is the loop's own.
func (l *Loop) QueueFeatures() []float64 { return l.queue }

// QueueBytes returns the instantaneous queue (PortSample.QueueBytes) of
// every agent port at the same steps as QueueFeatures, in the same order.
// The slice is the loop's own.
func (l *Loop) QueueBytes() []int64 { return l.queueBytes }

// QueueSteps returns the steps whose queues QueueFeatures and QueueBytes
// hold: those up to LoopConfig.QueueUntil.
func (l *Loop) QueueSteps() int { return l.queueSteps }

// portName names port p of f for errors: "port 3 (leaf0->spine1)".
func portName(f *topo.Fabric, p topo.PortID) string {
	return fmt.Sprintf("port %d (%s)", p, f.PortName(p))
}
