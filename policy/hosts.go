package policy

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"graphcc/control"
	"graphcc/scenario"
	"graphcc/topo"
)

// ParseHostParams parses the hosts' DCQCN constants of a spec after
// HostsMark: TIMER_US,ALPHA_US,DECREASE_US,AI_MBPS,HAI_MBPS, the
// rate-increase timer, the alpha update period and the rate-decrease
// period in µs, and the additive and hyper increase steps of a 25 Gbps NIC
// in Mbps (HPCC's preset is 300,1,4,5,50). Each must lie in the range a
// ConnectX-class NIC accepts (control.HostParams.Validate).
func ParseHostParams(args string) (control.HostParams, error) {
	v, err := parseNumbers(args, "TIMER_US,ALPHA_US,DECREASE_US,AI_MBPS,HAI_MBPS")
	if err != nil {
		return control.HostParams{}, fmt.Errorf("hosts' DCQCN: %w", err)
	}
	for _, x := range v {
		if x < 0 || x > 1e9 {
			return control.HostParams{}, fmt.Errorf("hosts' DCQCN: %g is not in [0, 1e9]", x)
		}
	}
	us := func(x float64) int64 { return int64(math.Round(x * float64(topo.Microsecond))) }
	mbps := func(x float64) int64 { return int64(math.Round(x * float64(topo.Mbps))) }
	h := control.HostParams{
		IncreaseInterval: us(v[0]), AlphaInterval: us(v[1]), DecreaseInterval: us(v[2]),
		AI: mbps(v[3]), HAI: mbps(v[4]),
	}
	if err := h.Validate(); err != nil {
		return control.HostParams{}, err
	}
	return h, nil
}

// FormatHostParams writes h as ParseHostParams reads it, in Canonical's
// number form.
func FormatHostParams(h control.HostParams) string {
	f := func(v, unit int64) string { return strconv.FormatFloat(float64(v)/float64(unit), 'f', -1, 64) }
	return strings.Join([]string{
		f(h.IncreaseInterval, topo.Microsecond), f(h.AlphaInterval, topo.Microsecond), f(h.DecreaseInterval, topo.Microsecond),
		f(h.AI, topo.Mbps), f(h.HAI, topo.Mbps),
	}, ",")
}

// WithHosts returns f whose policies also set the hosts' DCQCN constants
// to h for the whole run (control.HostTuner), in the simulator and on the
// testbed's hosts.
func WithHosts(f Factory, h control.HostParams) Factory {
	return func(fab *topo.Fabric, sc scenario.Scenario, seed uint64) (control.Policy, []control.ECN, error) {
		p, ecn, err := f(fab, sc, seed)
		if err != nil {
			return nil, nil, err
		}
		if p == nil {
			p = control.Static{}
		}
		return hostTuned{Policy: p, h: h}, ecn, nil
	}
}

// hostTuned is a policy with the hosts' constants it runs with.
type hostTuned struct {
	control.Policy
	h control.HostParams
}

func (p hostTuned) HostParams() (control.HostParams, bool) { return p.h, true }

// DecidesHosts and DecideHosts forward the wrapped policy's
// (control.HostDecider).
func (p hostTuned) DecidesHosts() bool {
	_, ok := control.HostDeciderOf(p.Policy)
	return ok
}

func (p hostTuned) DecideHosts(t *control.Telemetry, hosts []control.HostParams) {
	if d, ok := control.HostDeciderOf(p.Policy); ok {
		d.DecideHosts(t, hosts)
	}
}
