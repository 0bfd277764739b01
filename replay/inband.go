package replay

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"

	"graphcc/control"
	"graphcc/metrics"
	"graphcc/topo"
)

// InBand is a control policy whose step runs as one agent per switch, the
// agents exchanging messages as packets over the links they describe
// (gnn.InBand; docs/agents.md). Given one as Config.Policy, the simulator
// runs the control step over fabric time: at each tick the control loop
// records the interval (control.Loop.Observe) and Start begins the
// agents' step; their messages are packets in the switches' strict-priority
// queue, delivered by Arrive; Wake is the agents' timer (round deadlines);
// each agent puts its own ports' settings in force through Net.SetECN when
// it has decided, and once every agent has, the loop commits the step
// (control.Loop.Commit with Settings). Decide, the step within the tick,
// is not used by the simulator.
//
// Start, Arrive and Wake report whether the step is over: every agent has
// decided and nothing of the step is left to wait for. None of them may
// allocate (the simulator's event loop does not).
type InBand interface {
	control.Policy
	// Start begins a step on t, the telemetry of the interval ending at
	// t.Now, the time of net.Now(). The previous step is over.
	Start(net Net, t *control.Telemetry) (done bool)
	// Arrive hands over the message sent with tag during step step,
	// arrived at its receiving switch at net.Now().
	Arrive(net Net, tag int32, step uint32) (done bool)
	// Wake is called at the time of the last net.WakeAt.
	Wake(net Net) (done bool)
	// Settings writes the step's decision: every agent port's setting into
	// ecn (by topo.PortID) and, with a host head, the hosts' constants
	// into hosts.
	Settings(ecn []control.ECN, hosts []control.HostParams)
	// AgentStats returns the counts of the run so far.
	AgentStats() metrics.AgentStats
}

// Net is the simulator as an InBand's agents use it during Start, Arrive
// and Wake.
type Net interface {
	// Now returns the fabric time, ps.
	Now() int64
	// Send queues a message of bytes on the wire on switch port from (to
	// the switch at its other end), in the port's strict-priority queue
	// (the one ACKs use with Params.AckHighPriority): served after PFC
	// frames and before data, never paused, outside the buffer's
	// admission. Its arrival calls Arrive with tag and step.
	Send(from topo.PortID, bytes int, tag int32, step uint32)
	// WakeAt asks for a call of Wake at time at, replacing any earlier
	// request.
	WakeAt(at int64)
	// SetECN puts agent port p's marking setting in force now.
	SetECN(p topo.PortID, e control.ECN)
}

// simNet is the Sim as its InBand's agents see it.
type simNet Sim

// Now returns the simulated time.
func (n *simNet) Now() int64 { return n.now }

// Send queues an agent message on switch port from's priority queue.
func (n *simNet) Send(from topo.PortID, bytes int, tag int32, step uint32) {
	s := (*Sim)(n)
	if s.ports[from].down {
		s.c.MessagesLost++ // on a link that failed
		return
	}
	i := s.alloc(-1)
	s.pkts[i] = packet{next: -1, flow: -1, kind: kMsg, size: int32(bytes), hop: tag, seq: int64(step)}
	s.ports[from].ack.push(s.pkts, i)
	s.switchSend(from)
}

// WakeAt arms the agents' timer.
func (n *simNet) WakeAt(at int64) { (*Sim)(n).q.schedule((*Sim)(n).agentSrc(), at) }

// SetECN sets port p's marking.
func (n *simNet) SetECN(p topo.PortID, e control.ECN) {
	pt := &n.ports[p]
	pt.kmin, pt.kmax, pt.pmax = e.KMin, e.KMax, e.PMax
}

// initInBand sets up the run of an InBand policy: its message loss source
// and the loop's commit.
func (s *Sim) initInBand() error {
	ib, ok := s.cfg.Policy.(InBand)
	if !ok {
		if s.cfg.MessageLoss != 0 {
			return errors.New("replay: message loss without per-switch agents (an InBand policy)")
		}
		return nil
	}
	if l := s.cfg.MessageLoss; !(l >= 0 && l < 1) {
		return fmt.Errorf("replay: message loss %g must be in [0, 1)", l)
	}
	s.inband, s.ibWrite = ib, ib.Settings
	s.msgRng = rand.New(rand.NewPCG(s.cfg.Seed, 0x6d73676c6f7373)) // "msgloss"
	return nil
}

// inbandTick begins the agents' step at a tick, after the loop has
// observed the interval.
func (s *Sim) inbandTick() {
	if s.ibBusy {
		s.err = fmt.Errorf("replay: per-switch agents: the step at %s began before the previous one ended (K round deadlines exceed the interval)",
			topo.FormatDuration(s.now))
		return
	}
	s.ibBusy = true
	if s.inband.Start((*simNet)(s), &s.tel) {
		s.inbandDone()
	}
}

// msgArrive delivers agent message i at its switch, unless the seeded
// message loss drops it.
func (s *Sim) msgArrive(i int32) {
	tag, step := s.pkts[i].hop, uint32(s.pkts[i].seq)
	s.release(i)
	if s.cfg.MessageLoss > 0 && s.msgRng.Float64() < s.cfg.MessageLoss {
		s.c.MessagesLost++
		return
	}
	if s.inband.Arrive((*simNet)(s), tag, step) {
		s.inbandDone()
	}
}

// agentWake runs the agents' timer.
func (s *Sim) agentWake() {
	if s.inband.Wake((*simNet)(s)) {
		s.inbandDone()
	}
}

// inbandDone commits the agents' step in the control loop.
func (s *Sim) inbandDone() {
	if !s.ibBusy {
		return
	}
	s.ibBusy = false
	if err := s.loop.Commit(context.Background(), s.now, s.ibWrite); err != nil {
		s.err = fmt.Errorf("replay: %w", err)
	}
}
