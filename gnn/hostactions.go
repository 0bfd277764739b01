package gnn

import (
	"fmt"
	"math"

	"graphcc/control"
	"graphcc/dcqcn"
)

// The host action table: the DCQCN settings a host agent (a host's NIC
// port, with a model that has a host head) picks from every control
// interval. It spans the two constants that mattered most in the joint
// tuning of the hosts with the switches (docs/research-log.md, 2026-12-06,
// "tuning the hosts' DCQCN with the switches") — the rate-increase timer
// and the additive increase — and the alpha period, each at HPCC's preset
// and at the best joint constant's value, with the decrease period and
// hyper increase either HPCC's (4 µs, 50 Mbps) or the best constant's
// (2 µs, 25 Mbps). So both HPCC's preset (300,1,4,5,50: action 0) and the
// best fixed joint constant (55,55,2,20,25: action 15) are actions.
var (
	// HostIncreaseUS are the rate-increase timer levels, µs.
	HostIncreaseUS = [...]int64{300, 55}
	// HostAlphaUS are the alpha period levels, µs.
	HostAlphaUS = [...]int64{1, 55}
	// HostAIMbps are the additive increase levels, Mbps at control.RefRate.
	HostAIMbps = [...]int64{5, 20}
	// HostDecHAI are the (decrease period µs, hyper increase Mbps) pairs.
	HostDecHAI = [...][2]int64{{4, 50}, {2, 25}}
)

// NumHostActions is the size of the host action table.
const NumHostActions = len(HostIncreaseUS) * len(HostAlphaUS) * len(HostAIMbps) * len(HostDecHAI)

// HostTableID identifies the host action table: its levels and the order
// of its actions. A model file with a host head records it (host_table)
// and refuses to load on another. It must change whenever anything it
// describes changes (a test checks it against the table).
const HostTableID = "graphcc-dcqcn-actions/v1 timer=300,55us alpha=1,55us ai=5,20Mbps dec,hai=4us,50Mbps;2us,25Mbps ref=25Gbps order=timer-major,alpha,ai,then-dec,hai"

// HostAction returns the DCQCN constants of host action a: a =
// ((timer*2 + alpha)*2 + ai)*2 + dec,hai over the level indices of
// HostIncreaseUS, HostAlphaUS, HostAIMbps and HostDecHAI. It panics if a
// is not in [0, NumHostActions).
func HostAction(a int) control.HostParams {
	if a < 0 || a >= NumHostActions {
		panic(fmt.Sprintf("gnn: host action %d is outside [0, %d)", a, NumHostActions))
	}
	dh := HostDecHAI[a%len(HostDecHAI)]
	a /= len(HostDecHAI)
	ai := HostAIMbps[a%len(HostAIMbps)]
	a /= len(HostAIMbps)
	alpha := HostAlphaUS[a%len(HostAlphaUS)]
	a /= len(HostAlphaUS)
	return control.HostParams{
		IncreaseInterval: HostIncreaseUS[a] * dcqcn.Microsecond,
		AlphaInterval:    alpha * dcqcn.Microsecond,
		DecreaseInterval: dh[0] * dcqcn.Microsecond,
		AI:               ai * dcqcn.Mbps,
		HAI:              dh[1] * dcqcn.Mbps,
	}
}

// hostActionTable holds every host action's constants, by action.
var hostActionTable = func() [NumHostActions]control.HostParams {
	var t [NumHostActions]control.HostParams
	for a := range t {
		t[a] = HostAction(a)
	}
	return t
}()

// Replay buffers store host actions as uint8 too.
var _ = [1]struct{}{}[(NumHostActions-1)>>8]

// NearestHostAction returns the host action whose constants are nearest to
// h: the least sum, over the five constants, of the squared natural log of
// the ratio of h's value to the action's (a log-scale distance, so that a
// timer twice too long is as far as one half as long, whatever its unit).
// AI and HAI are compared as HostParams holds them and the table lists
// them, at control.RefRate: each NIC scales both alike (HostParams.Apply).
// A constant below 1 counts as 1. Ties (within 1e-9) go to the lower action, and
// NearestHostAction(HostAction(a)) is a for every action a. It does not
// allocate.
func NearestHostAction(h control.HostParams) int {
	return nearestLog(hostLogs(h), hostActionLogs)
}

// hostActionLogs holds hostLogs of every host action, by action.
var hostActionLogs = func() [][5]float64 {
	out := make([][5]float64, NumHostActions)
	for a := range out {
		out[a] = hostLogs(hostActionTable[a])
	}
	return out
}()

// tieEps is how much nearer an action must be than a lower one to win
// (NearestHostAction): distances equal but for rounding are ties.
const tieEps = 1e-9

// hostLogs returns the natural logs of h's five constants, each at least 1.
func hostLogs(h control.HostParams) [5]float64 {
	l := func(x int64) float64 { return math.Log(float64(max(x, 1))) }
	return [5]float64{l(h.IncreaseInterval), l(h.AlphaInterval), l(h.DecreaseInterval), l(h.AI), l(h.HAI)}
}
