package policy

import (
	"fmt"
	"slices"

	"graphcc/control"
	"graphcc/scenario"
	"graphcc/topo"
)

// Reactive is a hand-written adaptive policy, a yardstick for the
// learned ones: every control interval, each switch port whose queue
// feature (control.PortSample.QueueFeature, the one the learned policies
// see) reached threshold bytes gets busy, every other switch port gets
// calm. threshold, calm and busy are given for a 25 Gbps port
// (control.RefRate) and scaled by each port's rate/25G, as Fixed scales
// its setting. Ports start at calm.
func Reactive(threshold float64, calm, busy control.ECN) Factory {
	return func(f *topo.Fabric, _ scenario.Scenario, _ uint64) (control.Policy, []control.ECN, error) {
		if !(threshold >= 0) {
			return nil, nil, fmt.Errorf("reactive: queue threshold %g bytes must not be negative", threshold)
		}
		for _, e := range []control.ECN{calm, busy} {
			if err := e.Validate(); err != nil {
				return nil, nil, fmt.Errorf("reactive: %w", err)
			}
		}
		r := &reactive{calm: ScaledECN(f, calm), busy: ScaledECN(f, busy)}
		for i, p := range f.Ports {
			if f.Nodes[p.Src].Switch {
				r.ports = append(r.ports, topo.PortID(i))
				r.threshold = append(r.threshold, threshold*float64(p.Rate)/float64(control.RefRate))
			}
		}
		return r, slices.Clone(r.calm), nil
	}
}

type reactive struct {
	ports      []topo.PortID
	threshold  []float64 // per entry of ports
	calm, busy []control.ECN
}

func (r *reactive) Decide(t *control.Telemetry, ecn []control.ECN) {
	for i, p := range r.ports {
		if t.Ports[p].QueueFeature() >= r.threshold[i] {
			ecn[p] = r.busy[p]
		} else {
			ecn[p] = r.calm[p]
		}
	}
}
