package policy

import (
	"context"
	"fmt"
	"math"

	"graphcc/control"
	"graphcc/replay"
	"graphcc/scenario"
	"graphcc/topo"
)

// Factory builds the ECN control of one run: a fresh policy for
// fabric f of scenario sc at seed (it must share no state with the policies
// of other runs, which run concurrently), and the initial ECN setting of
// every port (indexed by topo.PortID), or nil for Alibaba's thresholds
// (control.StaticSettings).
type Factory func(f *topo.Fabric, sc scenario.Scenario, seed uint64) (control.Policy, []control.ECN, error)

// Named is a policy of an evaluation under the name its reports use.
type Named struct {
	Name string
	New  Factory
	// Run, if set, replaces the packet-level simulation for this policy's
	// runs (FairShare: the fabric's ideal); New is not called. Rewards do
	// not score such runs: there is no telemetry.
	Run func(context.Context, replay.Config) (*replay.Result, error)
	// Check, if set, reports whether the policy can run on scenario sc
	// without running it: tuned:DIR, whether DIR holds sc's tune result.
	// Evaluate calls it for every scenario before its first run, so that
	// a missing file fails an evaluation at once, not midway.
	Check func(sc scenario.Scenario) error
	// Inputs, if set, describes what the policy's runs on scenario sc
	// depend on besides its Name and the graphcc build: the digest of the
	// model file it loads (graphcc:FILE, acc:FILE), the best_policy of
	// the tune result it runs (tuned:FILE, tuned:DIR), how it trains on
	// the spot (acc). An evaluation's part files record it, so that
	// graphcc merge refuses parts whose policies ran differently; nil for
	// a policy its Name describes whole.
	Inputs func(sc scenario.Scenario) (string, error)
}

// Static is the static baseline: Alibaba's thresholds on every port,
// never changed.
func Static() Factory {
	return func(*topo.Fabric, scenario.Scenario, uint64) (control.Policy, []control.ECN, error) {
		return control.Static{}, nil, nil
	}
}

// Fixed keeps one setting per port rate: base is the setting of a
// 25 Gbps (control.RefRate) port, and every switch port gets its thresholds
// scaled by rate/25G (see ScaledECN). Fixed(control.Alibaba(25G))
// runs exactly as Static.
func Fixed(base control.ECN) Factory {
	return func(f *topo.Fabric, _ scenario.Scenario, _ uint64) (control.Policy, []control.ECN, error) {
		if err := base.Validate(); err != nil {
			return nil, nil, err
		}
		return control.Static{}, ScaledECN(f, base), nil
	}
}

// Edge keeps two settings, both given for a 25 Gbps port and scaled
// by each port's rate as Fixed scales its one: toHost on every switch
// port whose link leads to a host (the last hop, where incasts queue) and
// toSwitch on every switch port whose link leads to another switch.
// Edge(e, e) runs exactly as Fixed(e). It is a yardstick for
// what thresholds per port role, which a policy that sees the topology
// could learn, are worth beside one threshold for all.
func Edge(toHost, toSwitch control.ECN) Factory {
	return func(f *topo.Fabric, _ scenario.Scenario, _ uint64) (control.Policy, []control.ECN, error) {
		if err := toHost.Validate(); err != nil {
			return nil, nil, fmt.Errorf("edge: the setting of ports facing a host: %w", err)
		}
		if err := toSwitch.Validate(); err != nil {
			return nil, nil, fmt.Errorf("edge: the setting of ports facing a switch: %w", err)
		}
		ecn, sw := ScaledECN(f, toHost), ScaledECN(f, toSwitch)
		for i, p := range f.Ports {
			if f.Nodes[p.Src].Switch && f.Nodes[p.Dst].Switch {
				ecn[i] = sw[i]
			}
		}
		return control.Static{}, ecn, nil
	}
}

// ScaledECN returns a setting for every port of f: base, given for a
// 25 Gbps port, with KMin and KMax scaled by each switch port's rate/25G
// (rounded to whole bytes) and PMax unchanged, as `graphcc sim --kmin-kb`
// does. Ports whose source is a host keep Alibaba's thresholds (hosts do not
// mark).
func ScaledECN(f *topo.Fabric, base control.ECN) []control.ECN {
	ecn := control.StaticSettings(f)
	for i, p := range f.Ports {
		if !f.Nodes[p.Src].Switch {
			continue
		}
		scale := float64(p.Rate) / float64(control.RefRate)
		ecn[i] = control.ECN{
			KMin: int64(math.Round(float64(base.KMin) * scale)),
			KMax: int64(math.Round(float64(base.KMax) * scale)),
			PMax: base.PMax,
		}
	}
	return ecn
}
