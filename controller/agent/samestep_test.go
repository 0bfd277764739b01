package agent

import (
	"context"
	"slices"
	"testing"
	"time"

	"graphcc/control"
	"graphcc/gnn"
	"graphcc/topo"
)

// queueNet is a control.Net that delivers every message in the order
// sent, at once, and records the settings the agents put in force.
type queueNet struct {
	now  int64
	msgs []queuedMsg
	ecn  []control.ECN
}

type queuedMsg struct {
	tag  int32
	step uint32
}

func (n *queueNet) Now() int64 { return n.now }
func (n *queueNet) Send(_ topo.PortID, _ int, tag int32, step uint32) {
	n.msgs = append(n.msgs, queuedMsg{tag, step})
}
func (n *queueNet) WakeAt(int64)                        {}
func (n *queueNet) SetECN(p topo.PortID, e control.ECN) { n.ecn[p] = e }

// recordActuator is a control.Actuator that keeps what it applied last.
type recordActuator struct{ ecn []control.ECN }

func (a *recordActuator) ApplyECN(_ context.Context, ecn []control.ECN) error {
	a.ecn = slices.Clone(ecn)
	return nil
}

// TestAgentsSameStepAsInBand: the testbed's per-switch agents (Run, each
// through its own control.Loop on its switch's ports) and the simulator's
// in-band agents (gnn.InBand, through a control.Loop's Observe and Commit
// as replay runs them) make the same decisions on the same telemetry: the
// settings every testbed agent's loop applied at every step are those the
// in-band agents put in force and their loop committed, port for port.
func TestAgentsSameStepAsInBand(t *testing.T) {
	f := defaultClos(t, nil)
	m := embedded(t)
	a := &agentsRun{f: f, m: m, roundOut: 5 * time.Second}
	const steps = 8
	a.run(t, steps, 20*time.Millisecond)
	for name, err := range a.errs {
		if err != nil {
			t.Fatalf("agent of %s: %v", name, err)
		}
	}
	ib, err := gnn.NewInBand(m, f, gnn.FeatureConfig{}, gnn.InBandConfig{Misses: control.DefaultMissLimit})
	if err != nil {
		t.Fatal(err)
	}
	act := &recordActuator{}
	loop, err := control.NewLoop(control.LoopConfig{Fabric: f, Policy: ib, Apply: act})
	if err != nil {
		t.Fatal(err)
	}
	net := &queueNet{ecn: control.StaticSettings(f)}
	compared := 0
	for j := range steps {
		tel := control.Telemetry{Ports: make([]control.PortSample, len(f.Ports))}
		var reps []*Report
		for _, rs := range a.reports {
			r := rs[j]
			for k, p := range r.Ports {
				tel.Ports[p] = r.Samples[k]
			}
			tel.Now, tel.Interval = r.Now, r.Interval
			reps = append(reps, r)
		}
		net.now = tel.Now
		loop.Observe(&tel)
		done := ib.Start(net, &tel)
		for len(net.msgs) > 0 && !done {
			msg := net.msgs[0]
			net.msgs = net.msgs[1:]
			done = ib.Arrive(net, msg.tag, msg.step)
		}
		net.msgs = net.msgs[:0]
		if !done {
			t.Fatalf("step %d: the in-band agents did not decide", j)
		}
		if err := loop.Commit(t.Context(), tel.Now, ib.Settings); err != nil {
			t.Fatal(err)
		}
		for _, r := range reps {
			for k, e := range r.Applied {
				p := r.Ports[k]
				if got := loop.ECN()[p]; got != e || act.ecn[p] != e || net.ecn[p] != e {
					t.Errorf("step %d %s port %d: the testbed agent applied %+v, the in-band agents %+v (loop %+v, actuator %+v)",
						j, r.Switch, p, e, net.ecn[p], got, act.ecn[p])
				}
				if r.Chosen[k] != e {
					t.Errorf("step %d %s port %d: chose %+v, applied %+v without a miss", j, r.Switch, p, r.Chosen[k], e)
				}
				compared++
			}
		}
	}
	if want := steps * len(f.Agents()); compared != want {
		t.Errorf("compared %d port-steps, want %d", compared, want)
	}
	if s := ib.AgentStats(); s.DecisionMismatches != 0 || s.FallbackPortSteps != 0 {
		t.Errorf("in-band mismatches %d, fallback port-steps %d: want none", s.DecisionMismatches, s.FallbackPortSteps)
	}
	checkSettingsUsed(t, a)
}
