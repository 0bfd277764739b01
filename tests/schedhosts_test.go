package tests

import (
	"context"
	"slices"
	"testing"
	"time"

	"graphcc/control"
	"graphcc/controller"
	"graphcc/hostgen"
	"graphcc/internal/testfabric"
	"graphcc/policy"
	"graphcc/replay"
	"graphcc/topo"
)

// hostRecorder wraps a policy that decides the hosts' DCQCN constants and
// keeps, per step, the step's time and the constants it decided.
type hostRecorder struct {
	control.Policy
	now   []int64
	hosts [][]control.HostParams
}

func (r *hostRecorder) Decide(t *control.Telemetry, ecn []control.ECN) {
	r.now = append(r.now, t.Now)
	r.Policy.Decide(t, ecn)
}

func (r *hostRecorder) HostParams() (control.HostParams, bool) { return control.HostParamsOf(r.Policy) }

func (r *hostRecorder) DecidesHosts() bool {
	_, ok := control.HostDeciderOf(r.Policy)
	return ok
}

func (r *hostRecorder) DecideHosts(t *control.Telemetry, hosts []control.HostParams) {
	d, _ := control.HostDeciderOf(r.Policy)
	d.DecideHosts(t, hosts)
	r.hosts = append(r.hosts, slices.Clone(hosts))
}

// timedFabric is a testbed fabric (controller.TimedFabric) whose reads
// carry the times of a recorded run and report no traffic; once the
// times are used up it ends the run.
type timedFabric struct {
	times  []int64
	reads  int
	cancel context.CancelFunc
}

func (r *timedFabric) ReadTelemetry(ctx context.Context, dst []control.PortSample) error {
	r.reads++
	if r.reads-1 > len(r.times) {
		r.cancel()
		return ctx.Err()
	}
	clear(dst)
	return nil
}

func (r *timedFabric) ReadTime() (now, interval int64) {
	return r.times[r.reads-2], control.DefaultInterval
}

func (r *timedFabric) SetECN(_ context.Context, ecn []control.ECN) (int, error) { return len(ecn), nil }

// appliedHosts records the hosts' constants the testbed loop applies.
type appliedHosts struct{ got [][]control.HostParams }

func (h *appliedHosts) SetDCQCN(_ context.Context, hosts []control.HostParams) error {
	h.got = append(h.got, slices.Clone(hosts))
	return nil
}

// TestSchedHostsBothFabrics runs a schedule that changes the hosts' DCQCN
// constants at a time through both fabrics' control loops: the
// simulator's, on the tiny scenario, and the testbed's
// (controller.RunLoop), whose reads carry the simulator's step times.
// Both decide, and the testbed applies, the same constants at every step:
// the first step's before the change and the second's from the first
// control instant at or after it.
func TestSchedHostsBothFabrics(t *testing.T) {
	sc := testfabric.TinyScenario()
	f, flows, err := sc.Build(3)
	if err != nil {
		t.Fatal(err)
	}
	const spec = "sched:0=2,32,0.01/55,55,2,5,25:450us=8,64,1/30,55,2,40,400"
	first, _ := policy.ParseHostParams("55,55,2,5,25")
	second, _ := policy.ParseHostParams("30,55,2,40,400")
	np, err := policy.ParseControl(context.Background(), spec, policy.Env{})
	if err != nil {
		t.Fatal(err)
	}
	newPolicy := func() (*hostRecorder, []control.ECN) {
		pol, ecn, err := np.New(f, sc, 3)
		if err != nil {
			t.Fatal(err)
		}
		return &hostRecorder{Policy: pol}, ecn
	}

	sim, ecn := newPolicy()
	if _, err := replay.Run(replay.Config{Fabric: f, Flows: flows, Seed: 3, ECN: ecn, Policy: sim}); err != nil {
		t.Fatal(err)
	}
	before, after := 0, 0
	for k, hosts := range sim.hosts {
		want := first
		if sim.now[k]-sc.ArrivalStart() >= 450*topo.Microsecond {
			want, after = second, after+1
		} else {
			before++
		}
		for _, p := range control.HostPorts(f) {
			if hosts[p] != want {
				t.Fatalf("simulator, step %d at %s: host port %d on %+v, want %+v", k+1, topo.FormatDuration(sim.now[k]-sc.ArrivalStart()), p, hosts[p], want)
			}
		}
	}
	if before == 0 || after == 0 {
		t.Fatalf("%d steps before the change, %d after", before, after)
	}

	bed, ecn := newPolicy()
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	clock, err := hostgen.NewClock(time.Now(), 0.01) // 1 µs steps in real time: only the reads' times count
	if err != nil {
		t.Fatal(err)
	}
	applied := &appliedHosts{}
	st, err := controller.RunLoop(ctx, controller.LoopConfig{
		Fabric: f, Runtime: &timedFabric{times: sim.now, cancel: cancel}, Policy: bed, Clock: clock,
		Interval: control.DefaultInterval, Static: ecn, Hosts: applied,
	})
	if err != nil {
		t.Fatal(err)
	}
	if st.Steps != len(sim.now) || !slices.Equal(bed.now, sim.now) {
		t.Fatalf("the testbed loop made %d steps at %v, the simulator %d at %v", st.Steps, bed.now, len(sim.now), sim.now)
	}
	if !slices.EqualFunc(bed.hosts, sim.hosts, slices.Equal) || !slices.EqualFunc(applied.got, sim.hosts, slices.Equal) {
		t.Error("the testbed decided or applied other hosts' constants than the simulator")
	}
}
