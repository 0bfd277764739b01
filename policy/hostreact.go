package policy

import (
	"fmt"
	"strconv"
	"strings"

	"graphcc/control"
	"graphcc/scenario"
	"graphcc/topo"
)

// HostReact is a hand-written policy that sets the hosts' DCQCN constants
// every control interval (control.HostDecider), a yardstick for a learned
// one: the switches keep the one setting ecn (of a 25 Gbps port, scaled by
// each port's rate as Fixed scales it), and each host gets busy for the
// next interval if its own NIC port sent at least util of its line rate in
// the interval that ended (control.PortSample.Utilization, the one figure
// both fabrics report for a host's port), calm otherwise. Hosts start on
// calm (control.HostTuner), so HostReact(e, u, h, h) runs exactly as
// Fixed(e) with the constants h for the whole run (WithHosts).
func HostReact(ecn control.ECN, util float64, calm, busy control.HostParams) Factory {
	return func(f *topo.Fabric, _ scenario.Scenario, _ uint64) (control.Policy, []control.ECN, error) {
		if err := ecn.Validate(); err != nil {
			return nil, nil, fmt.Errorf("hostreact: %w", err)
		}
		if !(util >= 0 && util <= 1) {
			return nil, nil, fmt.Errorf("hostreact: utilization threshold %g is not in [0, 1]", util)
		}
		for _, h := range []control.HostParams{calm, busy} {
			if err := h.Validate(); err != nil {
				return nil, nil, fmt.Errorf("hostreact: %w", err)
			}
		}
		return &hostReact{ports: control.HostPorts(f), rates: hostRates(f), util: util, calm: calm, busy: busy}, ScaledECN(f, ecn), nil
	}
}

// hostRates returns the line rate of every host's NIC port, in
// control.HostPorts order.
func hostRates(f *topo.Fabric) []int64 {
	ports := control.HostPorts(f)
	rates := make([]int64, len(ports))
	for i, p := range ports {
		rates[i] = f.Ports[p].Rate
	}
	return rates
}

type hostReact struct {
	control.Static
	ports      []topo.PortID
	rates      []int64 // per entry of ports
	util       float64
	calm, busy control.HostParams
}

func (p *hostReact) HostParams() (control.HostParams, bool) { return p.calm, true }
func (p *hostReact) DecidesHosts() bool                     { return true }

func (p *hostReact) DecideHosts(t *control.Telemetry, hosts []control.HostParams) {
	for i, port := range p.ports {
		if t.Ports[port].Utilization(p.rates[i], t.Interval) >= p.util {
			hosts[port] = p.busy
		} else {
			hosts[port] = p.calm
		}
	}
}

// buildHostReact parses hostreact's arguments:
// KMIN_KB,KMAX_KB,PMAX:UTIL:CALM:BUSY, the switches' setting, the
// utilization threshold and two sets of the hosts' constants in
// ParseHostParams' form.
func buildHostReact(args string) (Factory, error) {
	parts := strings.Split(args, ":")
	if len(parts) != 4 {
		return nil, fmt.Errorf("want KMIN_KB,KMAX_KB,PMAX:UTIL:TIMER_US,ALPHA_US,DECREASE_US,AI_MBPS,HAI_MBPS:TIMER_US,…, got %q", args)
	}
	e, err := parseSetting(parts[0])
	if err != nil {
		return nil, fmt.Errorf("switches' setting: %w", err)
	}
	u, err := strconv.ParseFloat(strings.TrimSpace(parts[1]), 64)
	if err != nil || !(u >= 0 && u <= 1) {
		return nil, fmt.Errorf("utilization threshold %q must be a number in [0, 1]", parts[1])
	}
	calm, err := ParseHostParams(parts[2])
	if err != nil {
		return nil, fmt.Errorf("calm constants: %w", err)
	}
	busy, err := ParseHostParams(parts[3])
	if err != nil {
		return nil, fmt.Errorf("busy constants: %w", err)
	}
	return HostReact(e, u, calm, busy), nil
}
