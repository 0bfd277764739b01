package replay

import (
	"bytes"
	"testing"

	"graphcc/control"
	"graphcc/topo"
)

// hostSwitch is a policy that keeps the ECN settings, starts every host on
// start (control.HostTuner) and sets every host to then from time from on,
// every interval (control.HostDecider).
type hostSwitch struct {
	control.Static
	start, then control.HostParams
	from        int64
}

func (p hostSwitch) HostParams() (control.HostParams, bool) { return p.start, true }
func (p hostSwitch) DecidesHosts() bool                     { return true }

func (p hostSwitch) DecideHosts(t *control.Telemetry, hosts []control.HostParams) {
	h := p.start
	if t.Now >= p.from {
		h = p.then
	}
	for i := range hosts {
		hosts[i] = h
	}
}

// TestHostDecider: a policy that sets the hosts' constants every interval
// to the ones it started with runs exactly as the same constants fixed for
// the run; one that changes them mid-run changes the run, and only from
// the change on (the flows that finished before it are unchanged); the
// run with a change is deterministic.
func TestHostDecider(t *testing.T) {
	f := clos(t)
	flows := genFlows(t, f, 5, 2*topo.Millisecond)
	fast := control.DefaultHostParams()
	fast.IncreaseInterval, fast.AI = 55*topo.Microsecond, 20*topo.Mbps
	run := func(p control.Policy) *Result { return mustRun(t, Config{Fabric: f, Flows: flows, Seed: 5, Policy: p}) }

	fixed := run(hostTuned{h: fast})
	same := run(hostSwitch{start: fast, then: fast})
	if !bytes.Equal(fctText(t, fixed), fctText(t, same)) {
		t.Error("a decider that keeps its starting constants runs otherwise than the constants fixed for the run")
	}
	first := flows[0].Start
	change := first + 1*topo.Millisecond
	switched := run(hostSwitch{start: fast, then: control.DefaultHostParams(), from: change})
	if bytes.Equal(fctText(t, fixed), fctText(t, switched)) {
		t.Error("changing the hosts' constants mid-run changes nothing")
	}
	if again := run(hostSwitch{start: fast, then: control.DefaultHostParams(), from: change}); !bytes.Equal(fctText(t, switched), fctText(t, again)) {
		t.Error("two runs with a mid-run change differ")
	}
	// Flows that finished before the change (by the interval of the
	// change) are the same in both runs.
	byStart := map[[2]int64]int64{}
	for _, r := range fixed.FCT {
		byStart[[2]int64{r.Start, int64(r.Src)*1e6 + int64(r.SPort)}] = r.FCT
	}
	before, differ := 0, 0
	for _, r := range switched.FCT {
		k := [2]int64{r.Start, int64(r.Src)*1e6 + int64(r.SPort)}
		if r.Start+r.FCT < change-control.DefaultInterval {
			before++
			if byStart[k] != r.FCT {
				t.Errorf("flow from %d at %d finished before the change but its FCT differs: %d vs %d", r.Src, r.Start, r.FCT, byStart[k])
			}
		} else if byStart[k] != r.FCT {
			differ++
		}
	}
	if before == 0 || differ == 0 {
		t.Errorf("%d flows finished before the change, %d after it differ: want both", before, differ)
	}
}

// TestHostDeciderStepAllocs: with a policy that changes every host's
// constants every interval, Step still allocates nothing per event.
func TestHostDeciderStepAllocs(t *testing.T) {
	f := clos(t)
	flows := genFlows(t, f, 5, 5*topo.Millisecond)
	fast := control.DefaultHostParams()
	fast.IncreaseInterval = 55 * topo.Microsecond
	s, err := New(Config{Fabric: f, Flows: flows, Seed: 5, Policy: &flipHosts{a: fast, b: control.DefaultHostParams()}})
	if err != nil {
		t.Fatal(err)
	}
	for k := 0; k < 300_000 && s.Step(); k++ {
	}
	if allocs := testing.AllocsPerRun(20_000, func() { s.Step() }); allocs > 0.01 {
		t.Errorf("Step allocates %.4f times per event", allocs)
	}
}

// flipHosts alternates every host between a and b every interval.
type flipHosts struct {
	control.Static
	a, b control.HostParams
	n    int
}

func (p *flipHosts) DecidesHosts() bool { return true }

func (p *flipHosts) DecideHosts(_ *control.Telemetry, hosts []control.HostParams) {
	p.n++
	h := p.a
	if p.n%2 == 0 {
		h = p.b
	}
	for i := range hosts {
		hosts[i] = h
	}
}
