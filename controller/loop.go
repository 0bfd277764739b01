package controller

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"time"

	"graphcc/control"
	"graphcc/replay"
	"graphcc/topo"
)

// The testbed's control loop: every control interval, the telemetry of
// every port in (one counter read per switch), the policy, the changed ECN
// settings out (one write per switch with a change). It is the simulator's
// loop (replay's tick) on live switches: the same control.Telemetry, the
// same control.Policy, the same settings.

// Fabric is what the loop drives: FabricRuntime on BMv2 switches, or a
// stand-in in tests.
type Fabric interface {
	// ReadTelemetry writes the samples of the interval since the last read
	// into dst, indexed by topo.PortID.
	ReadTelemetry(ctx context.Context, dst []control.PortSample) error
	// SetECN writes the settings of ecn (by topo.PortID) that differ from
	// what the switches hold and returns how many it wrote.
	SetECN(ctx context.Context, ecn []control.ECN) (int, error)
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
	Fabric   *topo.Fabric
	Runtime  Fabric
	Policy   control.Policy
	Clock    FabricClock
	Interval int64 // control interval Δt, fabric picoseconds (replay.DefaultInterval)
	// Static are the settings the loop starts from and restores on every
	// switch it can still reach when it fails.
	Static []control.ECN
	// Trace, if set, receives the telemetry CSV (replay.TraceHeader rows,
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
	// Queue holds the queue feature (control.PortSample.QueueFeature,
	// bytes) of every switch port at every step.
	Queue []float64
	// Settings counts the settings the policy chose, as the simulator does
	// (replay.Summary.ECNSettings); empty without a policy.
	Settings replay.SettingCounter
}

// RunLoop runs the control loop, a step every Interval of fabric time from
// now, until ctx ends (then it returns nil, with the trace complete up to
// the last whole step, even if ctx ended inside a read or a write) or a
// switch fails: then it puts every switch it can still reach back on the
// static settings and returns an error that names the switch and why.
func RunLoop(ctx context.Context, c LoopConfig) (*LoopStats, error) {
	n := len(c.Fabric.Ports)
	if c.Interval <= 0 {
		return nil, fmt.Errorf("control loop: interval %d ps is not positive", c.Interval)
	}
	if len(c.Static) != n {
		return nil, fmt.Errorf("control loop: %d static settings for %d ports", len(c.Static), n)
	}
	for _, p := range c.Fabric.Agents() {
		if err := c.Static[p].Validate(); err != nil {
			return nil, fmt.Errorf("control loop: static setting of port %d: %w", p, err)
		}
	}
	tel := &control.Telemetry{Interval: c.Interval, Ports: make([]control.PortSample, n)}
	ecn := slices.Clone(c.Static)
	st := &LoopStats{}
	var trace *bufio.Writer
	if c.Trace != nil {
		trace = bufio.NewWriter(c.Trace)
		if _, err := trace.WriteString(replay.TraceHeader + "\n"); err != nil {
			return nil, fmt.Errorf("control loop: trace: %w", err)
		}
	}
	// flush ends the trace, on every way out.
	flush := func() error {
		if trace == nil {
			return nil
		}
		if err := trace.Flush(); err != nil {
			return fmt.Errorf("control loop: trace: %w", err)
		}
		return nil
	}
	// stopped is the way out when ctx ends.
	stopped := func() (*LoopStats, error) { return st, flush() }
	fail := func(err error) (*LoopStats, error) {
		return st, errors.Join(err, restoreStatic(ctx, c.Runtime, c.Static, c.RestoreTimeout), flush())
	}
	// The first read starts the counters' first interval.
	if err := c.Runtime.ReadTelemetry(ctx, tel.Ports); err != nil {
		if ctx.Err() != nil {
			return stopped()
		}
		return fail(fmt.Errorf("control loop: first telemetry read: %w", err))
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
			return stopped()
		case <-timer.C:
		}
		start := time.Now()
		if start.Sub(due) > c.Clock.Real(c.Interval) {
			st.Late++
		}
		if err := c.Runtime.ReadTelemetry(ctx, tel.Ports); err != nil {
			if ctx.Err() != nil {
				return stopped()
			}
			return fail(fmt.Errorf("control loop: step %d: %w", k, err))
		}
		read := time.Now()
		now := c.Clock.Now()
		tel.Now, tel.Interval = now, max(now-last, 1)
		last = now
		if c.Policy != nil {
			c.Policy.Decide(tel, ecn)
			for _, p := range c.Fabric.Agents() {
				if err := ecn[p].Validate(); err != nil {
					return fail(fmt.Errorf("control loop: step %d: policy set port %d: %w", k, p, err))
				}
			}
		}
		decided := time.Now()
		w, err := c.Runtime.SetECN(ctx, ecn)
		if err != nil {
			if ctx.Err() != nil {
				return stopped()
			}
			return fail(fmt.Errorf("control loop: step %d: %w", k, err))
		}
		end := time.Now()
		if c.Policy != nil { // counted with the step, once written
			for _, p := range c.Fabric.Agents() {
				st.Settings.Add(ecn[p], c.Fabric.Ports[p].Rate)
			}
		}
		st.Steps++
		st.Written += w
		st.Read = append(st.Read, read.Sub(start))
		st.Decide = append(st.Decide, decided.Sub(read))
		st.Write = append(st.Write, end.Sub(decided))
		st.Step = append(st.Step, end.Sub(start))
		for _, p := range c.Fabric.Agents() {
			st.Queue = append(st.Queue, tel.Ports[p].QueueFeature())
		}
		if trace != nil {
			replay.WriteTraceRows(trace, c.Fabric, now, tel.Ports, ecn)
		}
		if c.OnStep != nil {
			c.OnStep(tel, ecn)
		}
	}
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
