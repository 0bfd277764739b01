package controller

import (
	"bytes"
	"context"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/vishvananda/netlink"

	"graphcc/control"
	"graphcc/controller/lab"
	"graphcc/topo"
	"graphcc/trace"
)

// bridgeSwitches makes every switch of a lab built without switches a
// Linux bridge over its ports, so frames cross the fabric without BMv2. The
// fabric must be a tree (one spine): bridges flood, and a loop would storm.
func bridgeSwitches(t *testing.T, p *lab.Plan) {
	t.Helper()
	for _, sp := range p.Switches {
		h := nsHandle(t, sp.Netns)
		br := &netlink.Bridge{LinkAttrs: netlink.LinkAttrs{Name: "br0"}}
		if err := h.LinkAdd(br); err != nil {
			t.Fatalf("%s: add bridge: %v", sp.Name, err)
		}
		for _, pp := range sp.Ports {
			l, err := h.LinkByName(pp.Iface)
			if err != nil {
				t.Fatalf("%s: %v", sp.Name, err)
			}
			if err := h.LinkSetMaster(l, br); err != nil {
				t.Fatalf("%s: enslave %s: %v", sp.Name, pp.Iface, err)
			}
		}
		if err := h.LinkSetUp(br); err != nil {
			t.Fatalf("%s: bridge up: %v", sp.Name, err)
		}
	}
}

// TestRunWorkloadOverBridges runs a trace on the hosts of a real lab whose
// switches are Linux bridges, with the control loop on a stand-in fabric:
// every flow completes, and the FCTs and the summary are the simulator's
// kind. The policy also sets the hosts' DCQCN constants every step
// (control.HostDecider), which the hosts take while they send.
func TestRunWorkloadOverBridges(t *testing.T) {
	requireRoot(t)
	p := labPlan(t, "wl", 2, 1, 2)
	if _, err := upLab(t, lab.Config{Plan: p, NoSwitches: true}); err != nil {
		t.Fatal(err)
	}
	bridgeSwitches(t, p)
	f := p.Fabric
	hosts := f.Hosts()
	var flows []trace.Flow
	sizes := []int64{1000, 20_000, 150_000, 400_000}
	for i, size := range sizes {
		flows = append(flows,
			trace.Flow{Src: hosts[i%len(hosts)], Dst: hosts[(i+2)%len(hosts)], PG: 3, DPort: trace.DPortBackground,
				Size: size, Start: 2*topo.Second + int64(i)*20*topo.Microsecond},
			trace.Flow{Src: hosts[(i+1)%len(hosts)], Dst: hosts[i%len(hosts)], PG: 3, DPort: trace.DPortIncast,
				Size: size / 2, Start: 2*topo.Second + int64(i)*30*topo.Microsecond})
	}
	static := control.StaticSettings(f)
	fab := &fakeFabric{held: append([]control.ECN(nil), static...)}
	pol := &hostCounting{countingPolicy{f: f}}
	var telemetry bytes.Buffer
	res, err := RunWorkload(t.Context(), WorkloadConfig{
		Plan: p, Runtime: fab, Policy: pol, Static: static, Flows: flows, Scale: 200, Trace: &telemetry,
	})
	if err != nil {
		t.Fatal(err)
	}
	s := res.Summary
	t.Logf("completed %d of %d, slowdown mean %.2f p99 %.2f, %d control steps (%.3f ms mean), wall %.2f s",
		s.Completed, s.Flows, s.Slowdown.Mean, s.Slowdown.P99, s.ControlSteps, s.StepMsMean, s.WallSeconds)
	if s.Flows != len(flows) || s.Completed != len(flows) || s.Incomplete != 0 || len(res.FCT) != len(flows) {
		t.Fatalf("%d of %d flows completed (%d incomplete)", s.Completed, s.Flows, s.Incomplete)
	}
	for _, r := range res.FCT {
		if r.FCT <= 0 || r.Standalone <= 0 || r.Start < 2*topo.Second {
			t.Errorf("record %+v", r)
		}
	}
	if s.SlowdownIncast.Count != len(sizes) || s.SlowdownBackground.Count != len(sizes) {
		t.Errorf("incast %d, background %d flows", s.SlowdownIncast.Count, s.SlowdownBackground.Count)
	}
	if s.ControlSteps < 1 || pol.steps != s.ControlSteps || s.StepMsMean <= 0 {
		t.Errorf("%d control steps, policy called %d times, mean step %.3f ms", s.ControlSteps, pol.steps, s.StepMsMean)
	}
	if s.SimSeconds <= 0 || s.Scale != 200 {
		t.Errorf("sim seconds %v, scale %v", s.SimSeconds, s.Scale)
	}
	if want := float64(s.ControlSteps) * float64(control.DefaultInterval) / float64(topo.Second); s.QueueSeconds != want {
		t.Errorf("queue seconds %v, want %v for %d steps", s.QueueSeconds, want, s.ControlSteps)
	}
	var rx int64
	for _, h := range res.Hosts {
		rx += h.Delivered
	}
	var want int64
	for _, fl := range flows {
		want += fl.Size
	}
	if rx != want {
		t.Errorf("hosts delivered %d bytes, the flows carry %d", rx, want)
	}
	if !strings.HasPrefix(telemetry.String(), control.TraceHeader) {
		t.Error("no telemetry trace")
	}
	var fct bytes.Buffer
	if err := trace.WriteFCT(&fct, res.FCT); err != nil {
		t.Fatal(err)
	}
	back, err := trace.ReadFCT(&fct, "fct.txt")
	if err != nil || len(back) != len(flows) {
		t.Fatalf("fct.txt round trip: %d records, %v", len(back), err)
	}
}

// stuckLab builds a lab without switches or bridges, where nothing
// crosses the fabric, and returns its plan, a flow that cannot finish and
// the static settings.
func stuckLab(t *testing.T, tag string) (*lab.Plan, []trace.Flow, []control.ECN) {
	t.Helper()
	requireRoot(t)
	p := labPlan(t, tag, 2, 1, 1)
	if _, err := upLab(t, lab.Config{Plan: p, NoSwitches: true}); err != nil {
		t.Fatal(err)
	}
	hosts := p.Fabric.Hosts()
	flows := []trace.Flow{{Src: hosts[0], Dst: hosts[1], PG: 3, DPort: trace.DPortBackground, Size: 10_000, Start: 2 * topo.Second}}
	return p, flows, control.StaticSettings(p.Fabric)
}

// TestRunWorkloadCancel stops a run whose flows cannot finish when its
// context ends.
func TestRunWorkloadCancel(t *testing.T) {
	p, flows, static := stuckLab(t, "wc")
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	_, err := RunWorkload(ctx, WorkloadConfig{
		Plan: p, Runtime: &fakeFabric{held: append([]control.ECN(nil), static...)}, Static: static, Flows: flows, Scale: 100,
	})
	if err == nil || !strings.Contains(err.Error(), "context canceled") {
		t.Fatalf("error %v, want the context's", err)
	}
}

// TestRunWorkloadHostFails takes a host's NIC away during a run whose
// flows cannot finish: the run ends at once with that host's error rather
// than at its deadline.
func TestRunWorkloadHostFails(t *testing.T) {
	p, flows, static := stuckLab(t, "wf")
	victim := p.Hosts[0]
	var once sync.Once
	start := time.Now()
	const scale, drain = 100, 10 * topo.Second // a deadline 1000 s away
	fab := &fakeFabric{held: append([]control.ECN(nil), static...)}
	_, err := RunWorkload(t.Context(), WorkloadConfig{
		Plan: p, Runtime: fab, Policy: &countingPolicy{f: p.Fabric}, Static: static, Flows: flows,
		Scale: scale, Drain: drain,
		OnStep: func(*control.Telemetry, []control.ECN) {
			once.Do(func() {
				h := nsHandle(t, victim.Netns)
				l, err := h.LinkByName(victim.Iface)
				if err == nil {
					err = h.LinkDel(l)
				}
				if err != nil {
					t.Errorf("take %s's NIC away: %v", victim.Name, err)
				}
			})
		},
	})
	if err == nil || !strings.Contains(err.Error(), victim.Name) {
		t.Fatalf("error %v, want one naming host %s", err, victim.Name)
	}
	if last := fab.writes[len(fab.writes)-1]; !slices.Equal(last, static) {
		t.Error("the switches were left on the policy's settings after the host failed")
	}
	if took := time.Since(start); took > 100*time.Second {
		t.Errorf("the run went on for %v after a host failed (its deadline was 1000 s away)", took)
	}
}

// TestLeadClockTraceTime: the testbed's fabric clock runs in the trace's
// time, so the control loop's telemetry carries the same instants the
// simulator's does (control.Telemetry.Now, which policies that decide
// from the time, such as sched:, rely on): it reads first-lead as the run
// starts, the trace's first start less the lead, never the time since the
// run began.
func TestLeadClockTraceTime(t *testing.T) {
	first := 2*topo.Second + 37*topo.Microsecond
	c, err := leadClock(first, lab.DefaultScale)
	if err != nil {
		t.Fatal(err)
	}
	// The bound from above is loose, so as not to depend on how fast this
	// runs (at scale 10,000 a second of fabric time is nearly three hours
	// of real time); the one from below allows for float rounding.
	if now := c.Now(); now < first-11*topo.Microsecond || now > first+topo.Second {
		t.Errorf("the clock reads %s at the start, want about %s", topo.FormatDuration(now), topo.FormatDuration(first-10*topo.Microsecond))
	}
}
