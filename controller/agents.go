package controller

import (
	"context"
	"time"

	"graphcc/control"
)

// The testbed's per-switch agents (docs/agents.md): a process per switch
// runs that switch's share of the GraphCC step and exchanges hidden states
// with its neighbours in-band. The control loop then reads no switch
// itself: it runs the central step as a shadow of the agents' reports.

// The ways a testbed run computes a GraphCC policy's step
// (TestbedSummary.Agents).
const (
	AgentsCentral   = "central"    // the controller reads, decides and writes every switch
	AgentsPerSwitch = "per-switch" // one agent process per switch; the controller shadows them
)

// Agents runs the per-switch agents of one workload run (package
// controller/agent). RunWorkload starts them once its fabric clock runs,
// drives the control loop on the Fabric Start returns (the shadow: its
// reads are the agents' reports, its writes compare the central decisions
// with the agents'), and stops them when the run ends.
type Agents interface {
	// Start starts the agents as s says and returns the Fabric the control
	// loop drives in place of the switches. With s.Hosts set, that Fabric
	// is also the loop's Hosts: its SetDCQCN compares the central step's
	// hosts' constants with the agents' instead of applying them.
	Start(ctx context.Context, s AgentStart) (Fabric, error)
	// Stop ends the agents (those still running) and returns what they
	// did. It is called once, after the loop has returned.
	Stop() (AgentStats, error)
}

// AgentStart is what the agents of a run start from.
type AgentStart struct {
	// Clock is the run's fabric clock; agent step j is due at fabric time
	// Epoch + (j+1)×Interval.
	Clock           FabricClock
	Epoch, Interval int64
	// Hosts, set when the model has a host head (the policy decides the
	// hosts' DCQCN constants, control.HostDeciderOf), are the run's hosts:
	// each leaf's agent reports its hosts' constants every step and the
	// controller, which emulates the hosts' NICs, applies them through
	// Hosts as it reads the report. HostBase are the constants the hosts
	// start with (by topo.PortID), which the hosts of an agent on the
	// static settings, or of an agent that ended, go back to.
	Hosts    Hosts
	HostBase []control.HostParams
}

// AgentStats is what the per-switch agents of a run did.
type AgentStats struct {
	Processes  int   // agent processes started
	Failed     int   // agents that ended before Stop (their switches went back to the static settings)
	Steps      int64 // agent steps reported, over every agent
	Messages   int64 // in-band messages sent (PacketOuts)
	Bytes      int64 // their frames' bytes, Ethernet header on
	Late       int64 // messages missing at their round's deadline (the round used the fallback)
	Stale      int64 // messages that arrived after their round was computed (dropped)
	StaticPort int64 // port-steps an agent held its ports on the static settings (a neighbour missing too long)
	// Mismatches counts the ports, over the steps the shadow ran, whose
	// setting the agent's model chose differs from the central step's on
	// the same counter reads.
	Mismatches int64
	// HostMismatches counts the hosts, over the steps the shadow ran, whose
	// DCQCN constants the leaf's model chose differ from the central
	// step's (a model with a host head; 0 otherwise).
	HostMismatches int64
	// HostDelay holds, for every step of every leaf with hosts, the time
	// from the leaf's readout to its hosts' constants in force at the
	// controller (the agent's ECN write, its report, the pipe, the
	// decoding, SetDCQCN); HostHop the part from the report's writing on.
	HostDelay, HostHop []time.Duration
	// Round holds every round of every agent: from the end of its
	// features (round 1) or of its previous round until it computes the
	// round; ByRound[k-1] the rounds k alone.
	Round    []time.Duration
	ByRound  [][]time.Duration
	Exchange []time.Duration // every step of every agent: its K rounds
	// Where a round's time goes, over every step of every agent: how late
	// the step began after it was due (Start) and its telemetry read
	// (Read); over every message: its send call (Send), from the send's
	// start to the neighbour's client receiving it from its switch
	// (OneWay: both switches' pipelines, the link, gRPC both ways), and
	// from then until the neighbour's round took it (Handoff: the
	// client's channel, the agent's scheduling, or the neighbour still in
	// its previous round).
	Start, Read           []time.Duration
	Send, OneWay, Handoff []time.Duration
	OneWayByRound         [][]time.Duration // OneWay of the rounds k alone, at k-1
}

// An AgentLoop is an Agents' Fabric that says what the control loop runs
// on it: RunWorkload runs the loop's step with LoopPolicy(p), p the run's
// policy, so that the loop's trace rows and settings counts are the
// settings the agents applied while p runs as their shadow
// (agent.Shadow).
type AgentLoop interface {
	Fabric
	LoopPolicy(p control.Policy) control.Policy
}

// TimedFabric is a Fabric whose reads carry their own time: RunLoop takes
// the interval's end from ReadTime after each read rather than from its
// clock. The agents' shadow is one: every agent reads at its step's due
// time, and the shadow must see the same. The interval the policies divide
// by is the nominal one on every fabric (LoopConfig.Interval), which is
// also what the agents report.
type TimedFabric interface {
	Fabric
	// ReadTime returns the fabric time of the last read and the interval
	// it closed, ps.
	ReadTime() (now, interval int64)
}
