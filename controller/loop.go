package controller

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"graphcc/control"
	"graphcc/topo"
)

// The testbed's control loop: every control interval, the telemetry of
// every port in (one counter read per switch), then control.Loop's step:
// the trace, the policy, the changed ECN settings out (one write per switch
// with a change). The simulator runs the same step from its clock.

// Fabric is what the loop drives: p4rt.Fabric on BMv2 switches, or a
// stand-in in tests.
type Fabric interface {
	// ReadTelemetry writes the samples of the interval since the last read
	// into dst, indexed by topo.PortID.
	ReadTelemetry(ctx context.Context, dst []control.PortSample) error
	// SetECN writes the settings of ecn (by topo.PortID) that differ from
	// what the switches hold and returns how many it wrote.
	SetECN(ctx context.Context, ecn []control.ECN) (int, error)
}

// Hosts puts the hosts' DCQCN constants a policy decides every interval
// (control.HostDecider) in force on the testbed's hosts: RunWorkload's
// hostgen hosts.
type Hosts interface {
	// SetDCQCN puts hosts (indexed by topo.PortID; only the hosts' NIC
	// ports matter) in force from now on, on every host whose constants
	// changed.
	SetDCQCN(ctx context.Context, hosts []control.HostParams) error
}

// FabricClock gives fabric time: real time divided by the testbed's scale.
// hostgen.Clock is one.
type FabricClock interface {
	Now() int64                // fabric picoseconds since the start
	At(fabric int64) time.Time // the real instant of a fabric time
	Real(fabric int64) time.Duration
}

// LoopConfig configures RunLoop.
type LoopConfig struct {
	Fabric  *topo.Fabric
	Runtime Fabric
	Policy  control.Policy
	Clock   FabricClock
	// Interval is the control interval Δt, fabric picoseconds
	// (control.DefaultInterval): the steps are due every Interval, and the
	// policies divide every step's counters by it, the nominal interval,
	// as the simulator and the testbed's agents do, however long the step
	// actually took (LoopStats.Intervals).
	Interval int64
	// QueueUntil, if positive, ends the queue-feature samples
	// (LoopStats.Queue) at that fabric time, as the simulator's
	// replay.Config.QueueUntil ends its own.
	QueueUntil int64
	// Static are the settings the loop starts from and restores on every
	// switch it can still reach when it fails.
	Static []control.ECN
	// Hosts, if set, applies the hosts' DCQCN constants of a policy that
	// decides them every interval (control.HostDeciderOf), which needs it;
	// HostStart are those the hosts start with, by topo.PortID (nil: the
	// policy's own or the defaults, control.LoopConfig.Hosts).
	Hosts     Hosts
	HostStart []control.HostParams
	// Trace, if set, receives the telemetry CSV (control.TraceHeader rows,
	// as the simulator's --trace-out) of every step.
	Trace io.Writer
	// OnStep, if set, is called after every step with its telemetry and
	// the settings now in force (both the loop's own: read, do not keep).
	OnStep func(t *control.Telemetry, ecn []control.ECN)
	// RestoreTimeout bounds the restore of the static settings after a
	// failure (5 s if 0).
	RestoreTimeout time.Duration
}

// LoopStats describes a finished loop: how long each phase of a control
// step took, in real time.
type LoopStats struct {
	Steps   int
	Written int             // ECN entries written
	Late    int             // steps that started more than one real interval after their time
	Read    []time.Duration // per step: the telemetry read of every switch
	Decide  []time.Duration // per step: features, inference, settings
	Write   []time.Duration // per step: the writes of the changed settings
	Step    []time.Duration // per step: read + decide + write
	// Intervals holds, per step, the fabric time since the previous read,
	// ps: the interval the counters actually cover, a diagnostic (the
	// policies see the nominal LoopConfig.Interval).
	Intervals []int64
	// Queue holds the queue feature (control.PortSample.QueueFeature,
	// bytes) of every switch port at every step up to
	// LoopConfig.QueueUntil (control.Loop.QueueFeatures); QueueSteps are
	// those steps.
	Queue      []float64
	QueueSteps int
	// Settings are the settings the policy chose and the switches took, as
	// the simulator counts them (metrics.Summary.ECNSettings); none without
	// a policy.
	Settings []control.SettingUse
}

// RunLoop runs the control loop, a step every Interval of fabric time from
// now, until ctx ends (then it returns nil, with the trace complete up to
// the last interval whose telemetry was read, even if ctx ended inside a
// read or a write) or a switch fails: then it puts every switch it can
// still reach back on the static settings and returns an error that names
// the switch and why. Each step reads every switch's counters and hands
// them to a control.Loop, the step the simulator runs too.
func RunLoop(ctx context.Context, c LoopConfig) (*LoopStats, error) {
	if c.Interval <= 0 {
		return nil, fmt.Errorf("control loop: interval %d ps is not positive", c.Interval)
	}
	if len(c.Static) != len(c.Fabric.Ports) {
		return nil, fmt.Errorf("control loop: %d static settings for %d ports", len(c.Static), len(c.Fabric.Ports))
	}
	w := &timedWriter{rt: c.Runtime}
	var act control.Actuator = w
	if c.Hosts != nil {
		act = &hostWriter{timedWriter: w, hosts: c.Hosts}
	}
	loop, err := control.NewLoop(control.LoopConfig{
		Fabric: c.Fabric, Policy: c.Policy, ECN: c.Static, Apply: act, Hosts: c.HostStart, Trace: c.Trace,
		QueueUntil: c.QueueUntil,
	})
	if err != nil {
		return nil, fmt.Errorf("control loop: %w", err)
	}
	r := &loopRun{c: c, loop: loop, w: w, st: &LoopStats{},
		tel: &control.Telemetry{Interval: c.Interval, Ports: make([]control.PortSample, len(c.Fabric.Ports))}}
	err = r.run(ctx)
	r.st.Written = w.written
	r.st.Settings = loop.Settings()
	r.st.Queue = loop.QueueFeatures()
	if n := len(c.Fabric.Agents()); n > 0 {
		r.st.QueueSteps = len(r.st.Queue) / n
	}
	if ctx.Err() != nil { // ended from outside: not a failure
		return r.st, loop.Flush()
	}
	return r.st, errors.Join(err, restoreStatic(ctx, c.Runtime, c.Static, c.RestoreTimeout), loop.Flush())
}

// loopRun is one run of RunLoop.
type loopRun struct {
	c    LoopConfig
	loop *control.Loop
	w    *timedWriter
	st   *LoopStats
	tel  *control.Telemetry
}

// run steps until ctx ends (nil) or a step fails (its error).
func (r *loopRun) run(ctx context.Context) error {
	c := r.c
	// The first read starts the counters' first interval.
	if err := c.Runtime.ReadTelemetry(ctx, r.tel.Ports); err != nil {
		return fmt.Errorf("control loop: first telemetry read: %w", err)
	}
	base := c.Clock.Now()
	last := base
	timer := time.NewTimer(0)
	defer timer.Stop()
	for k := int64(1); ; k++ {
		due := c.Clock.At(base + k*c.Interval)
		timer.Reset(time.Until(due))
		select {
		case <-ctx.Done():
			return nil
		case <-timer.C:
		}
		start := time.Now()
		if start.Sub(due) > c.Clock.Real(c.Interval) {
			r.st.Late++
		}
		if err := c.Runtime.ReadTelemetry(ctx, r.tel.Ports); err != nil {
			return fmt.Errorf("control loop: step %d: %w", k, err)
		}
		read := time.Now()
		now := c.Clock.Now()
		r.tel.Now = now
		if tf, ok := c.Runtime.(TimedFabric); ok {
			r.tel.Now, _ = tf.ReadTime()
		}
		measured := now - last
		last = now
		r.w.took = 0
		if err := r.loop.Step(ctx, r.tel); err != nil {
			return err
		}
		end := time.Now()
		r.st.Steps++
		r.st.Intervals = append(r.st.Intervals, measured)
		r.st.Read = append(r.st.Read, read.Sub(start))
		r.st.Decide = append(r.st.Decide, end.Sub(read)-r.w.took)
		r.st.Write = append(r.st.Write, r.w.took)
		r.st.Step = append(r.st.Step, end.Sub(start))
		if c.OnStep != nil {
			c.OnStep(r.tel, r.loop.ECN())
		}
	}
}

// timedWriter is the testbed's control.Actuator: it writes the settings
// that changed to the switches, counts the entries written and times the
// write.
type timedWriter struct {
	rt      Fabric
	written int
	took    time.Duration // the last write's
}

// ApplyECN writes ecn's changed entries through the fabric runtime.
func (w *timedWriter) ApplyECN(ctx context.Context, ecn []control.ECN) error {
	start := time.Now()
	n, err := w.rt.SetECN(ctx, ecn)
	w.took = time.Since(start)
	w.written += n
	return err
}

// hostWriter is the testbed's control.HostActuator: a timedWriter that also
// sets the hosts' DCQCN constants, its time counted in the write's.
type hostWriter struct {
	*timedWriter
	hosts Hosts
}

// ApplyHosts sets the hosts' changed constants.
func (w *hostWriter) ApplyHosts(ctx context.Context, hosts []control.HostParams) error {
	start := time.Now()
	err := w.hosts.SetDCQCN(ctx, hosts)
	w.took += time.Since(start)
	return err
}

// restoreStatic writes the static settings to every switch rt can reach,
// within timeout (0: 5 s) even if ctx has ended, as the loop does after a
// failure.
func restoreStatic(ctx context.Context, rt Fabric, static []control.ECN, timeout time.Duration) error {
	if timeout <= 0 {
		timeout = 5 * time.Second
	}
	rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), timeout)
	defer cancel()
	if _, err := rt.SetECN(rctx, static); err != nil {
		return fmt.Errorf("restore static ECN settings: %w", err)
	}
	return nil
}
