package tests

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"graphcc/control"
	"graphcc/controller"
	"graphcc/hostgen"
	"graphcc/replay"
	"graphcc/topo"
	"graphcc/trace"
	"graphcc/workload"
)

// scripted is a policy whose choices depend only on its step count and the
// telemetry it is shown, so that two fabrics showing it the same telemetry
// see it choose the same settings. It records what it chose at each step.
type scripted struct {
	f      *topo.Fabric
	step   int
	chosen [][]control.ECN // per step: the settings after Decide
}

func (p *scripted) Decide(t *control.Telemetry, ecn []control.ECN) {
	p.step++
	for i, a := range p.f.Agents() {
		s := &t.Ports[a]
		switch {
		case (p.step+i)%3 == 0:
			ecn[a] = control.ECN{KMin: 2000 + s.TxBytes%7000, KMax: 16_000 + s.MarkedBytes%50_000, PMax: 0.25}
		case p.step%4 == 0 && s.EnqPackets() > 0:
			ecn[a] = control.ECN{KMin: 8000, KMax: 64_000, PMax: 1}
		case s.FlowStarts > 0 || s.EnqQueued() > 0:
			ecn[a] = control.ECN{KMin: 1000 * (1 + s.FlowStarts%5), KMax: 32_000 + int64(s.QueueHigh())%10_000, PMax: 0.5}
		} // otherwise the setting in force stays
	}
	p.chosen = append(p.chosen, slices.Clone(ecn))
}

// recorder wraps a policy and keeps the time and a copy of the telemetry
// of every step.
type recorder struct {
	control.Policy
	now   []int64
	steps [][]control.PortSample
}

func (r *recorder) Decide(t *control.Telemetry, ecn []control.ECN) {
	r.now = append(r.now, t.Now)
	r.steps = append(r.steps, slices.Clone(t.Ports))
	r.Policy.Decide(t, ecn)
}

// loopTrace is the fabric and trace both fabrics' loops run in these
// tests: a small Clos under 2 ms of generated traffic at load 0.8 with
// incasts of 4, and the generator that made it.
func loopTrace(t *testing.T) (*topo.Fabric, workload.GenConfig, []trace.Flow) {
	t.Helper()
	f, err := topo.Clos(topo.ClosConfig{Leaves: 2, Spines: 1, HostsPerLeaf: 3, HostRate: 25 * topo.Gbps,
		FabricRate: 100 * topo.Gbps, LinkDelay: topo.Microsecond, Buffer: 32 << 20})
	if err != nil {
		t.Fatal(err)
	}
	gen := workload.DefaultGen()
	gen.Duration, gen.Load = 2*topo.Millisecond, 0.8
	gen.Incast.FanIn = 4
	flows, err := workload.Generate(f, gen)
	if err != nil {
		t.Fatal(err)
	}
	return f, gen, flows
}

// replayedFabric is a testbed fabric (controller.Fabric) whose switches
// report, step by step, the telemetry the simulator recorded, and hold
// what the loop writes. Once the recording is used up it ends the run.
type replayedFabric struct {
	steps  [][]control.PortSample
	reads  int
	held   []control.ECN
	cancel context.CancelFunc
}

func (r *replayedFabric) ReadTelemetry(ctx context.Context, dst []control.PortSample) error {
	r.reads++
	if r.reads == 1 { // the first read starts the counters' first interval
		return nil
	}
	k := r.reads - 2
	if k >= len(r.steps) {
		r.cancel()
		return ctx.Err()
	}
	copy(dst, r.steps[k])
	return nil
}

func (r *replayedFabric) SetECN(_ context.Context, ecn []control.ECN) (int, error) {
	n := 0
	for i := range ecn {
		if ecn[i] != r.held[i] {
			r.held[i] = ecn[i]
			n++
		}
	}
	return n, nil
}

// TestLoopTracesAgree drives one scripted policy through both fabrics'
// control loops: the simulator's, on a generated trace, and the testbed's
// (controller.RunLoop), on switches that report the telemetry the
// simulator measured. The two telemetry traces agree row for row in every
// column but the time (the testbed's is its clock's), and in both a row
// carries the settings in force during the interval it describes: the
// static ones in the first interval, then those the policy chose at the
// end of the interval before.
func TestLoopTracesAgree(t *testing.T) {
	f, _, flows := loopTrace(t)
	static := control.StaticSettings(f)

	simPolicy := &scripted{f: f}
	rec := &recorder{Policy: simPolicy}
	var simTrace strings.Builder
	if _, err := replay.Run(replay.Config{Fabric: f, Flows: flows, Policy: rec, Trace: &simTrace}); err != nil {
		t.Fatal(err)
	}
	if len(rec.steps) < 10 {
		t.Fatalf("the simulation made %d control steps, want at least 10", len(rec.steps))
	}

	bedPolicy := &scripted{f: f}
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	fab := &replayedFabric{steps: rec.steps, held: slices.Clone(static), cancel: cancel}
	clock, err := hostgen.NewClock(time.Now(), 1) // 100 µs steps in real time
	if err != nil {
		t.Fatal(err)
	}
	var bedTrace strings.Builder
	st, err := controller.RunLoop(ctx, controller.LoopConfig{
		Fabric: f, Runtime: fab, Policy: bedPolicy, Clock: clock,
		Interval: control.DefaultInterval, Static: static, Trace: &bedTrace,
	})
	if err != nil {
		t.Fatal(err)
	}
	if st.Steps != len(rec.steps) {
		t.Fatalf("the testbed loop made %d steps, the simulator %d", st.Steps, len(rec.steps))
	}
	if !slices.EqualFunc(simPolicy.chosen, bedPolicy.chosen, slices.Equal) {
		t.Fatal("the policy chose other settings on the testbed than in the simulator")
	}

	simRows, bedRows := traceRows(t, simTrace.String()), traceRows(t, bedTrace.String())
	if len(simRows) != len(bedRows) {
		t.Fatalf("the simulator traced %d rows, the testbed %d", len(simRows), len(bedRows))
	}
	n := len(f.Ports)
	for i := range simRows {
		step, port := i/n, i%n
		if a, b := simRows[i][1:], bedRows[i][1:]; !slices.Equal(a, b) {
			t.Fatalf("row %d (step %d, port %d): simulator %v, testbed %v", i, step+1, port, a, b)
		}
		want := static[port] // in force during the first interval
		if step > 0 {
			want = simPolicy.chosen[step-1][port]
		}
		if got := strings.Join(simRows[i][11:14], ","); got != fmt.Sprintf("%d,%d,%g", want.KMin, want.KMax, want.PMax) {
			t.Fatalf("row %d (step %d, port %d) carries %s, want the settings in force %v", i, step+1, port, got, want)
		}
	}
	// The rows agree on the flow-mix columns because both loops were shown
	// the same counts; make sure there were counts to agree on.
	for _, col := range []string{"flow_starts", "enq_queued_packets", "queue_p90_bytes"} {
		k := slices.Index(strings.Split(control.TraceHeader, ","), col)
		if k < 0 {
			t.Fatalf("the telemetry CSV has no column %s", col)
		}
		nonzero := 0
		for _, r := range simRows {
			if r[k] != "0" {
				nonzero++
			}
		}
		if nonzero == 0 {
			t.Errorf("column %s is 0 in every row", col)
		}
	}
}

// traceRows splits a telemetry CSV into its rows' fields, checking the header.
func traceRows(t *testing.T, csv string) [][]string {
	t.Helper()
	lines := strings.Split(strings.TrimSuffix(csv, "\n"), "\n")
	if lines[0] != control.TraceHeader {
		t.Fatalf("trace header %q", lines[0])
	}
	var rows [][]string
	for _, l := range lines[1:] {
		rows = append(rows, strings.Split(l, ","))
	}
	return rows
}
