package controller

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"graphcc/control"
	"graphcc/hostgen"
	"graphcc/topo"
)

// fakeFabric counts bytes on every port and records the settings written.
// Like a P4Runtime fabric, it fails a call whose context has ended.
type fakeFabric struct {
	mu       sync.Mutex
	reads    int
	failRead int // the read that fails (0: none)
	held     []control.ECN
	writes   [][]control.ECN
	// cancel, if set, is called during read cancelRead or write
	// cancelWrite (counting from 1), which then fails as a call cut short
	// by its context does.
	cancel                  context.CancelFunc
	cancelRead, cancelWrite int
}

func (f *fakeFabric) ReadTelemetry(ctx context.Context, dst []control.PortSample) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.reads++
	if f.cancel != nil && f.reads == f.cancelRead {
		f.cancel()
	}
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("read counters: %w", err)
	}
	if f.reads == f.failRead {
		return errors.New("switch leaf1: read counters: connection refused")
	}
	for i := range dst {
		dst[i] = control.PortSample{TxBytes: int64(1000 * f.reads), QueueBytes: -1, EnqDepthMax: -1}
		dst[i].EnqHist.Add(int64(f.reads % 5))
	}
	return nil
}

func (f *fakeFabric) SetECN(ctx context.Context, ecn []control.ECN) (int, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.cancel != nil && len(f.writes)+1 == f.cancelWrite {
		f.cancel()
	}
	if err := ctx.Err(); err != nil {
		return 0, fmt.Errorf("write ECN entries: %w", err)
	}
	n := 0
	for i := range ecn {
		if ecn[i] != f.held[i] {
			n++
		}
	}
	f.held = append(f.held[:0], ecn...)
	f.writes = append(f.writes, append([]control.ECN(nil), ecn...))
	return n, nil
}

// countingPolicy sets kmin of every agent to 1000 bytes times the step.
type countingPolicy struct {
	f     *topo.Fabric
	steps int
	tx    []int64
	iv    []int64 // the interval of every step's telemetry
	bad   int     // the step at which it returns an invalid setting (0: none)
}

func (p *countingPolicy) Decide(t *control.Telemetry, ecn []control.ECN) {
	p.steps++
	p.tx = append(p.tx, t.Ports[0].TxBytes)
	p.iv = append(p.iv, t.Interval)
	for _, port := range p.f.Agents() {
		ecn[port].KMin = int64(1000 * p.steps)
		ecn[port].KMax = max(ecn[port].KMax, ecn[port].KMin)
		if p.steps == p.bad {
			ecn[port].PMax = 2
		}
	}
}

func loopFabric(t *testing.T) *topo.Fabric {
	c := topo.DefaultClos()
	c.Leaves, c.Spines, c.HostsPerLeaf = 2, 1, 2
	f, err := topo.Clos(c)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

func TestRunLoop(t *testing.T) {
	f := loopFabric(t)
	static := control.StaticSettings(f)
	fab := &fakeFabric{held: append([]control.ECN(nil), static...)}
	pol := &countingPolicy{f: f}
	clock, err := hostgen.NewClock(time.Now(), 10) // Δt = 1 ms real
	if err != nil {
		t.Fatal(err)
	}
	var trace bytes.Buffer
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Millisecond)
	defer cancel()
	st, err := RunLoop(ctx, LoopConfig{
		Fabric: f, Runtime: fab, Policy: pol, Clock: clock, Interval: control.DefaultInterval,
		Static: static, Trace: &trace,
	})
	if err != nil {
		t.Fatal(err)
	}
	// ctx may end inside the last step, after its decision and before its
	// write: that step is not counted, though the policy ran.
	if st.Steps < 5 || pol.steps != st.Steps && pol.steps != st.Steps+1 || len(st.Step) != st.Steps {
		t.Fatalf("%d steps, policy called %d times, %d step times", st.Steps, pol.steps, len(st.Step))
	}
	// every step's telemetry is that step's read (the first read only
	// starts the interval)
	for i, tx := range pol.tx {
		if tx != int64(1000*(i+2)) {
			t.Errorf("step %d: policy saw tx %d, want %d", i+1, tx, 1000*(i+2))
		}
	}
	// the policy divides by the nominal interval, as in the simulator;
	// the intervals the reads actually closed are a diagnostic
	for i, iv := range pol.iv {
		if iv != control.DefaultInterval {
			t.Errorf("step %d: policy saw an interval of %d ps, want the nominal %d", i+1, iv, control.DefaultInterval)
		}
	}
	if len(st.Intervals) != st.Steps || slices.Min(st.Intervals) <= 0 {
		t.Errorf("%d measured intervals for %d steps: %v", len(st.Intervals), st.Steps, st.Intervals)
	}
	if st.Written != st.Steps*len(f.Agents()) {
		t.Errorf("%d entries written in %d steps of %d agents", st.Written, st.Steps, len(f.Agents()))
	}
	var portSteps int64
	for _, u := range st.Settings {
		portSteps += u.PortSteps
	}
	if portSteps != int64(st.Steps*len(f.Agents())) {
		t.Errorf("settings count %d port-steps in %d steps of %d agents", portSteps, st.Steps, len(f.Agents()))
	}
	rows := strings.Count(trace.String(), "\n")
	if want := 1 + pol.steps*len(f.Ports); rows != want { // a cut step's interval was read: it is traced
		t.Errorf("trace has %d lines, want %d", rows, want)
	}
	if !strings.HasPrefix(trace.String(), control.TraceHeader+"\n") {
		t.Error("trace does not start with the simulator's header")
	}
}

// TestRunLoopCancelFlushesTrace ends the loop's context inside a switch
// read and inside a write: the loop returns no error, the settings count
// holds the steps completed before, and the trace holds the header and
// every interval whose telemetry was read (a row describes the interval
// with the settings in force during it, so the step cut short in its
// write has its rows too).
func TestRunLoopCancelFlushesTrace(t *testing.T) {
	f := loopFabric(t)
	static := control.StaticSettings(f)
	for _, tc := range []struct {
		name                    string
		cancelRead, cancelWrite int
		steps, traced           int
	}{
		{"in the first read", 1, 0, 0, 0},
		{"in a read", 4, 0, 2, 2}, // read 1 starts the interval: read 4 is step 3's
		{"in a write", 0, 3, 2, 3},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx, cancel := context.WithCancel(t.Context())
			defer cancel()
			fab := &fakeFabric{held: append([]control.ECN(nil), static...), cancel: cancel,
				cancelRead: tc.cancelRead, cancelWrite: tc.cancelWrite}
			clock, _ := hostgen.NewClock(time.Now(), 10)
			var trace strings.Builder
			st, err := RunLoop(ctx, LoopConfig{
				Fabric: f, Runtime: fab, Policy: &countingPolicy{f: f}, Clock: clock,
				Interval: control.DefaultInterval, Static: static, Trace: &trace,
			})
			if err != nil {
				t.Fatal(err)
			}
			if st.Steps != tc.steps {
				t.Errorf("%d steps, want %d", st.Steps, tc.steps)
			}
			var portSteps int64
			for _, u := range st.Settings {
				portSteps += u.PortSteps
			}
			if want := int64(st.Steps * len(f.Agents())); portSteps != want {
				t.Errorf("settings count %d port-steps, want %d: a step cut short counts", portSteps, want)
			}
			if !strings.HasPrefix(trace.String(), control.TraceHeader+"\n") {
				t.Errorf("trace %q has no header", trace.String())
			}
			if rows, want := strings.Count(trace.String(), "\n"), 1+tc.traced*len(f.Ports); rows != want {
				t.Errorf("trace has %d lines, want %d", rows, want)
			}
		})
	}
}

func TestRunLoopFailureRestoresStatic(t *testing.T) {
	f := loopFabric(t)
	static := control.StaticSettings(f)
	for _, tc := range []struct {
		name     string
		failRead int
		bad      int
		want     string
	}{
		{"switch read fails", 4, 0, "switch leaf1"},
		{"policy sets pmax 2", 0, 2, "pmax 2"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fab := &fakeFabric{held: append([]control.ECN(nil), static...), failRead: tc.failRead}
			clock, _ := hostgen.NewClock(time.Now(), 10)
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()
			_, err := RunLoop(ctx, LoopConfig{
				Fabric: f, Runtime: fab, Policy: &countingPolicy{f: f, bad: tc.bad}, Clock: clock,
				Interval: control.DefaultInterval, Static: static,
			})
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want one naming %q", err, tc.want)
			}
			last := fab.writes[len(fab.writes)-1]
			for i := range last {
				if last[i] != static[i] {
					t.Fatalf("port %d left at %v after the failure, want the static %v", i, last[i], static[i])
				}
			}
		})
	}
}
