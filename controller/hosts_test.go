package controller

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"graphcc/control"
	"graphcc/dcqcn"
	"graphcc/hostgen"
)

// hostCounting is countingPolicy that also sets every host's rate-increase
// timer to 100 µs plus 10 µs per step.
type hostCounting struct{ countingPolicy }

func (p *hostCounting) DecidesHosts() bool { return true }

func (p *hostCounting) DecideHosts(_ *control.Telemetry, hosts []control.HostParams) {
	for _, port := range control.HostPorts(p.f) {
		hosts[port].IncreaseInterval = (100 + 10*int64(p.steps)) * dcqcn.Microsecond
	}
}

// fakeHosts records the hosts' constants it was given.
type fakeHosts struct{ got [][]control.HostParams }

func (h *fakeHosts) SetDCQCN(_ context.Context, hosts []control.HostParams) error {
	h.got = append(h.got, append([]control.HostParams(nil), hosts...))
	return nil
}

// TestRunLoopHosts: the live loop applies a HostDecider's constants through
// LoopConfig.Hosts every step, after the policy's Decide of that step, and
// refuses to start such a policy without a way to apply them.
func TestRunLoopHosts(t *testing.T) {
	f := loopFabric(t)
	static := control.StaticSettings(f)
	clock, err := hostgen.NewClock(time.Now(), 10)
	if err != nil {
		t.Fatal(err)
	}
	pol := &hostCounting{countingPolicy{f: f}}
	hosts := &fakeHosts{}
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Millisecond)
	defer cancel()
	st, err := RunLoop(ctx, LoopConfig{
		Fabric: f, Runtime: &fakeFabric{held: append([]control.ECN(nil), static...)}, Policy: pol, Clock: clock,
		Interval: control.DefaultInterval, Static: static, Hosts: hosts,
	})
	if err != nil {
		t.Fatal(err)
	}
	if st.Steps < 2 || len(hosts.got) != st.Steps {
		t.Fatalf("%d host applies in %d steps", len(hosts.got), st.Steps)
	}
	for k, got := range hosts.got {
		want := (100 + 10*int64(k+1)) * dcqcn.Microsecond
		for _, port := range control.HostPorts(f) {
			if got[port].IncreaseInterval != want || got[port].AI != control.DefaultHostParams().AI {
				t.Fatalf("step %d, port %d: %+v, want timer %d and the other constants the defaults", k+1, port, got[port], want)
			}
		}
	}
	_, err = RunLoop(t.Context(), LoopConfig{
		Fabric: f, Runtime: &fakeFabric{held: append([]control.ECN(nil), static...)}, Policy: pol, Clock: clock,
		Interval: control.DefaultInterval, Static: static,
	})
	if err == nil || !strings.Contains(err.Error(), "cannot apply them") {
		t.Errorf("a host policy without hosts: %v", err)
	}
}

// TestHostSet: a workload's hosts start with the constants of their
// configuration (the policy's own here) and take a decider's changed
// constants, scaled to each host's line rate; a policy that does not
// decide them gets no hostSet.
func TestHostSet(t *testing.T) {
	p := labPlan(t, "hs", 2, 1, 2)
	own := control.DefaultHostParams()
	own.AI = 20 * dcqcn.Mbps
	c := WorkloadConfig{Plan: p, Policy: &tunedHostCounting{hostCounting{countingPolicy{f: p.Fabric}}, own}}
	hosts, err := newHosts(p, c.hostConfig())
	if err != nil {
		t.Fatal(err)
	}
	clock, err := hostgen.NewClock(time.Now(), 10)
	if err != nil {
		t.Fatal(err)
	}
	if (&WorkloadConfig{Plan: p, Policy: &countingPolicy{f: p.Fabric}}).hostSet(hosts, clock) != nil {
		t.Error("a policy that does not decide the hosts' constants has a hostSet")
	}
	hs := c.hostSet(hosts, clock)
	ports := control.HostPorts(p.Fabric)
	for _, port := range ports {
		if hs.cur[port] != own {
			t.Fatalf("port %d starts with %+v, want the policy's %+v", port, hs.cur[port], own)
		}
	}
	next := slices.Clone(hs.cur)
	fast := own
	fast.IncreaseInterval, fast.HAI = 55*dcqcn.Microsecond, 100*dcqcn.Mbps
	next[ports[1]] = fast
	if err := hs.SetDCQCN(t.Context(), next); err != nil {
		t.Fatal(err)
	}
	for i, h := range hosts {
		want := own
		if i == 1 {
			want = fast
		}
		cfg := h.Config()
		if got := h.DCQCN(); got != want.Apply(dcqcn.DefaultParams(cfg.LineRate), cfg.LineRate) {
			t.Errorf("host %d: constants %+v, want %+v", i, got, want)
		}
	}
}

// tunedHostCounting is hostCounting with its own starting constants
// (control.HostTuner).
type tunedHostCounting struct {
	hostCounting
	h control.HostParams
}

func (p tunedHostCounting) HostParams() (control.HostParams, bool) { return p.h, true }
