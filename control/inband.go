package control

import "graphcc/topo"

// InBand is a control policy whose step runs as one agent per switch, the
// agents exchanging messages as packets over the links they describe
// (gnn.InBand; docs/agents.md). A fabric that carries the messages (the
// simulator, replay.Config.Policy) runs the control step over fabric time:
// at each tick the control loop records the interval (Loop.Observe) and
// Start begins the agents' step; their messages are packets the fabric
// delivers by Arrive; Wake is the agents' timer (round deadlines); each
// agent puts its own ports' settings in force through Net.SetECN when it
// has decided, and once every agent has, the loop commits the step
// (Loop.Commit with Settings). Decide, the step within the tick, is for
// a fabric that does not carry the messages.
//
// Start, Arrive and Wake report whether the step is over: every agent has
// decided and nothing of the step is left to wait for. None of them may
// allocate (the simulator's event loop does not).
type InBand interface {
	Policy
	// Start begins a step on t, the telemetry of the interval ending at
	// t.Now, the time of net.Now(). The previous step is over.
	Start(net Net, t *Telemetry) (done bool)
	// Arrive hands over the message sent with tag during step step,
	// arrived at its receiving switch at net.Now().
	Arrive(net Net, tag int32, step uint32) (done bool)
	// Wake is called at the time of the last net.WakeAt.
	Wake(net Net) (done bool)
	// Settings writes the step's decision: every agent port's setting into
	// ecn (by topo.PortID) and, with a host head, the hosts' constants
	// into hosts.
	Settings(ecn []ECN, hosts []HostParams)
}

// Net is a fabric that carries an InBand's messages, as its agents use it
// during Start, Arrive and Wake.
type Net interface {
	// Now returns the fabric time, ps.
	Now() int64
	// Send queues a message of bytes on the wire on switch port from (to
	// the switch at its other end), in the port's strict-priority queue
	// (the one ACKs use): served after PFC frames and before data, never
	// paused, outside the buffer's admission. Its arrival calls Arrive
	// with tag and step.
	Send(from topo.PortID, bytes int, tag int32, step uint32)
	// WakeAt asks for a call of Wake at time at, replacing any earlier
	// request.
	WakeAt(at int64)
	// SetECN puts agent port p's marking setting in force now.
	SetECN(p topo.PortID, e ECN)
}
