package control

import (
	"context"
	"errors"
	"fmt"
	"math"

	"graphcc/dcqcn"
	"graphcc/topo"
)

// HostParams is a setting of the hosts' DCQCN reaction point: the
// constants an operator sets on a ConnectX-class NIC besides the switches'
// ECN thresholds. A policy that carries one (HostTuner) runs with it on
// every host's NIC, in both fabrics; the constants it does not name keep
// the fabric's (dcqcn.DefaultParams: HPCC's preset).
type HostParams struct {
	// IncreaseInterval is the rate-increase timer, ps (rpg_time_reset,
	// HPCC's RP_TIMER).
	IncreaseInterval int64
	// AlphaInterval is the alpha update period, ps (dce_tcp_rtt,
	// ALPHA_RESUME_INTERVAL).
	AlphaInterval int64
	// DecreaseInterval is the period of the rate-decrease check, ps
	// (rate_reduce_monitor_period, RATE_DECREASE_INTERVAL).
	DecreaseInterval int64
	// AI and HAI are the additive and hyper increase steps of a NIC of
	// RefRate, bps (rpg_ai_rate and rpg_hai_rate), scaled by each NIC's
	// rate/RefRate as the simulator scales HPCC's.
	AI, HAI int64
}

// The ranges HostParams.Validate accepts: what ConnectX-4 and later take
// (NVIDIA's DCQCN parameter table: the timers 1 to 131071 µs, the
// increase steps 1 Mbps to the line rate), narrowed where the simulator's
// model needs it (the rate-increase timer must exceed the decrease check,
// dcqcn.Params.Validate).
const (
	MinHostTimer = 1 * dcqcn.Microsecond
	MaxHostTimer = 131071 * dcqcn.Microsecond
	MinHostStep  = 1 * dcqcn.Mbps
)

// DefaultHostParams returns the HostParams of HPCC's DCQCN preset, which
// both fabrics run when a policy sets none.
func DefaultHostParams() HostParams {
	d := dcqcn.DefaultParams(RefRate)
	return HostParams{
		IncreaseInterval: d.IncreaseInterval, AlphaInterval: d.AlphaInterval,
		DecreaseInterval: d.DecreaseInterval, AI: d.AI, HAI: d.HAI,
	}
}

// Validate reports the first constant out of its range, by name.
func (h HostParams) Validate() error {
	timers := []struct {
		name string
		v    int64
	}{{"rate-increase timer", h.IncreaseInterval}, {"alpha period", h.AlphaInterval}, {"decrease period", h.DecreaseInterval}}
	for _, t := range timers {
		if t.v < MinHostTimer || t.v > MaxHostTimer {
			return fmt.Errorf("host DCQCN: %s %g µs: want 1 to 131071 µs", t.name, float64(t.v)/float64(dcqcn.Microsecond))
		}
	}
	for _, s := range []struct {
		name string
		v    int64
	}{{"additive increase", h.AI}, {"hyper increase", h.HAI}} {
		if s.v < MinHostStep || s.v > RefRate {
			return fmt.Errorf("host DCQCN: %s %g Mbps: want 1 Mbps to the line rate (%d Mbps at 25 Gbps)", s.name, float64(s.v)/float64(dcqcn.Mbps), RefRate/dcqcn.Mbps)
		}
	}
	if h.IncreaseInterval <= h.DecreaseInterval+dcqcn.DefaultFirstDecreaseDelay {
		return errors.New("host DCQCN: the rate-increase timer must exceed the decrease period")
	}
	return nil
}

// Apply returns p with h's constants for a NIC of lineRate bps: the
// timers as they are, AI and HAI scaled by lineRate/RefRate (floored, as
// dcqcn.DefaultParams scales HPCC's).
func (h HostParams) Apply(p dcqcn.Params, lineRate int64) dcqcn.Params {
	p.IncreaseInterval, p.AlphaInterval, p.DecreaseInterval = h.IncreaseInterval, h.AlphaInterval, h.DecreaseInterval
	p.AI = int64(float64(h.AI) * float64(lineRate) / float64(RefRate))
	p.HAI = int64(float64(h.HAI) * float64(lineRate) / float64(RefRate))
	return p
}

// A HostTuner is a Policy that also sets the hosts' reaction point for the
// whole run. HostParams reports the setting, or false for none (a wrapper
// of any policy forwards it).
type HostTuner interface {
	Policy
	HostParams() (HostParams, bool)
}

// HostParamsOf returns the hosts' setting of p if p is a HostTuner that
// has one.
func HostParamsOf(p Policy) (HostParams, bool) {
	if t, ok := p.(HostTuner); ok {
		return t.HostParams()
	}
	return HostParams{}, false
}

// A HostDecider is a Policy that also sets the hosts' DCQCN constants every
// control interval, host by host. Loop calls DecideHosts right after
// Decide, with the same telemetry and the constants in force, indexed by
// topo.PortID like the ECN settings: only the entries of the hosts' NIC
// ports (HostPorts) matter, and DecideHosts overwrites those it wants to
// change. The constants are per NIC port, not per host node, because the
// NIC is what holds them and what the telemetry (t.Ports) and the agent
// graph describe: a policy reads a host's sample and writes its constants
// at the same index. DecidesHosts reports whether DecideHosts is to be
// called at all, so that a wrapper of any policy can forward it. Like
// Decide, DecideHosts must not keep t or hosts after it returns.
type HostDecider interface {
	Policy
	DecidesHosts() bool
	DecideHosts(t *Telemetry, hosts []HostParams)
}

// HostDeciderOf returns p as a HostDecider if it is one that decides.
func HostDeciderOf(p Policy) (HostDecider, bool) {
	if d, ok := p.(HostDecider); ok && d.DecidesHosts() {
		return d, true
	}
	return nil, false
}

// A HostActuator is an Actuator that can also put the hosts' DCQCN
// constants in force: the simulator changes its hosts' reaction points, the
// testbed its hostgen hosts'. ApplyHosts gets every host's constants,
// indexed by topo.PortID (only the hosts' NIC ports matter); it applies
// those that differ from what the host holds, from the fabric's present
// time on (dcqcn.Sender.Rebase).
type HostActuator interface {
	Actuator
	ApplyHosts(ctx context.Context, hosts []HostParams) error
}

// HostPorts returns the NIC port of every host of f (topo.Fabric.HostPort),
// in host order: the entries of a HostDecider's slice that matter.
func HostPorts(f *topo.Fabric) []topo.PortID {
	out := make([]topo.PortID, 0, len(f.Hosts()))
	for _, h := range f.Hosts() {
		out = append(out, f.HostPort(h))
	}
	return out
}

// HostParamsAt returns the HostParams of p, the constants of a NIC of
// lineRate bps: the timers as they are, AI and HAI scaled back to RefRate
// (rounded), the inverse of Apply up to its flooring.
func HostParamsAt(p dcqcn.Params, lineRate int64) HostParams {
	back := func(v int64) int64 { return int64(math.Round(float64(v) * float64(RefRate) / float64(lineRate))) }
	return HostParams{
		IncreaseInterval: p.IncreaseInterval, AlphaInterval: p.AlphaInterval,
		DecreaseInterval: p.DecreaseInterval, AI: back(p.AI), HAI: back(p.HAI),
	}
}
