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

// InBand is a control.InBand the simulator runs (Config.Policy): its step
// runs over fabric time, its agents' messages packets in the switches'
// strict-priority queues (the one ACKs use with Params.AckHighPriority),
// and it counts its agents' figures for the run's summary.
type InBand interface {
	control.InBand
	// AgentStats returns the counts of the run so far.
	AgentStats() metrics.AgentStats
}

// simNet is the Sim as its InBand's agents see it: a control.Net.
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
	cib, ok := s.cfg.Policy.(control.InBand)
	if !ok {
		if s.cfg.MessageLoss != 0 {
			return errors.New("replay: message loss without per-switch agents (an InBand policy)")
		}
		return nil
	}
	ib, ok := cib.(InBand)
	if !ok {
		return fmt.Errorf("replay: in-band policy %T does not count its agents (AgentStats)", cib)
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

var _ control.Net = (*simNet)(nil)
