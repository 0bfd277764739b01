package replay

import (
	"fmt"

	"graphcc/control"
	"graphcc/dcqcn"
	"graphcc/topo"
)

// Params are the constants of the simulated hardware. DefaultParams gives
// HPCC's values (the configuration of docs/simulator.md); every field can be changed.
type Params struct {
	// Payload is the largest data payload per packet, bytes (HPCC's
	// PACKET_PAYLOAD_SIZE, 1000).
	Payload int
	// Header is the per-packet header overhead of a data packet, bytes: 14
	// link, 20 IPv4, 8 UDP, 6 sequence/priority (48).
	Header int
	// AckSize is the wire size of an ACK or NACK, bytes (60).
	AckSize int
	// PFCSize is the wire size of a PFC PAUSE or RESUME frame, bytes (64).
	PFCSize int

	// PFC turns priority flow control on. With it off, a switch drops a
	// packet that finds its ingress port over the dynamic threshold (there is
	// no headroom to absorb it), and hosts recover by go-back-N.
	PFC bool
	// Reserve is the guaranteed buffer per ingress port and priority, bytes
	// (HPCC's 4 KiB).
	Reserve int64
	// ResumeOffset is the hysteresis below the dynamic threshold at which a
	// paused ingress port is resumed, bytes (HPCC's 3 KiB).
	ResumeOffset int64
	// HeadroomRTTs sizes each ingress port's PFC headroom as HeadroomRTTs *
	// rate * one-way delay / 8 bytes (HPCC: 3).
	HeadroomRTTs int64

	// ECN turns marking at switch egress ports on.
	ECN bool

	// AckHighPriority puts ACKs and NACKs at switches in a queue of their
	// own, served before data and never paused, outside the shared buffer's
	// admission and PFC accounting, as HPCC's switches do with their
	// AckHighPrio attribute set (queue 0). HPCC's simulator never sets it:
	// its ACK_HIGH_PRIO config key only changes which priority's PAUSE stops
	// a NIC's ACKs, so HPCC runs with either value queue ACKs behind data
	// at switches. Off (HPCC's behaviour, the configuration of docs/simulator.md) they
	// queue behind data, are admitted and counted like it, and are never
	// marked. The testbed serves them first, so this setting compares with
	// it.
	AckHighPriority bool

	// HPCCRoundRobin makes a NIC's round robin over its flows HPCC's
	// exactly (RdmaEgressQueue::GetNextQindex), as DefaultParams does: a
	// finished flow stays in the NIC's list until a later scan meets it,
	// and that scan compacts the list without moving the round-robin
	// position, which therefore shifts. Off, a flow leaves the list when it
	// finishes and the position stays on the flow served last. How flows
	// to one busy receiver share its link depends on it (docs/simulator.md,
	// "Fidelity to HPCC's ns-3 simulator").
	HPCCRoundRobin bool

	// NanosecondTiming rounds every serialization time (a packet on a
	// link, a NIC's pacing gap) down to a whole nanosecond, as HPCC's ns-3
	// simulator ends up computing them (its time unit is the nanosecond).
	// Links then run faster than their nominal rate: by 0.1 % at 25 Gbps,
	// 1.0 % at 100 Gbps and 4.6 % at 400 Gbps for 1048-byte packets, more
	// for 60-byte ACKs. Off (the default) serialization is exact to the
	// picosecond. Only for comparing with HPCC (docs/simulator.md, "Fidelity to HPCC's ns-3 simulator").
	NanosecondTiming bool

	// Window is the fixed inflight payload limit per flow, bytes. 0 takes the
	// fabric's largest base-RTT bandwidth-delay product (HPCC's HAS_WIN 1,
	// GLOBAL_T 1, VAR_WIN 0); a negative value disables the window.
	Window int64
	// NackInterval is the least time between two NACKs for the same
	// expected sequence number, ps (HPCC's NACK interval, 500 µs).
	NackInterval int64

	// LossRTO is the retransmission timeout used when PFC is off or links
	// fail during the run (Config.LinkEvents), ps. HPCC's NIC has none: it
	// relies on PFC and on NACKs, which only a later packet of the same
	// flow can trigger, so a flow whose last packets are all dropped would
	// never finish. Then a sender that has data in flight and has seen no
	// new ACK for LossRTO goes back to its last acknowledged byte. 0
	// disables it, and a run with link events refuses it.
	LossRTO int64

	// DCQCN holds the reaction-point constants for a 25 Gbps NIC. The
	// additive steps AI and HAI scale with each NIC's rate (HPCC's run.py:
	// ai = 5 Mbps * bw / 25G); the other constants are used as they are.
	DCQCN dcqcn.Params
}

// DefaultParams returns HPCC's configuration (docs/simulator.md): 1000-byte payloads,
// PFC and ECN on, the fixed BDP window, DCQCN's Mellanox preset and HPCC's
// NIC round robin.
func DefaultParams() Params {
	return Params{
		Payload:        1000,
		Header:         48,
		AckSize:        60,
		PFCSize:        64,
		PFC:            true,
		Reserve:        4 * 1024,
		ResumeOffset:   3 * 1024,
		HeadroomRTTs:   3,
		ECN:            true,
		Window:         0,
		NackInterval:   500 * topo.Microsecond,
		LossRTO:        1 * topo.Millisecond,
		HPCCRoundRobin: true,
		DCQCN:          dcqcn.DefaultParams(control.RefRate),
	}
}

// Validate reports the first field that cannot be simulated.
func (p *Params) Validate() error {
	switch {
	case p.Payload <= 0:
		return fmt.Errorf("params: payload %d must be positive", p.Payload)
	case p.Header < 0:
		return fmt.Errorf("params: header %d must not be negative", p.Header)
	case p.AckSize <= 0:
		return fmt.Errorf("params: ack size %d must be positive", p.AckSize)
	case p.PFCSize <= 0:
		return fmt.Errorf("params: pfc frame size %d must be positive", p.PFCSize)
	case p.Reserve < 0:
		return fmt.Errorf("params: reserve %d must not be negative", p.Reserve)
	case p.ResumeOffset < 0:
		return fmt.Errorf("params: resume offset %d must not be negative", p.ResumeOffset)
	case p.HeadroomRTTs < 0:
		return fmt.Errorf("params: headroom rtts %d must not be negative", p.HeadroomRTTs)
	case p.LossRTO < 0:
		return fmt.Errorf("params: loss rto %d must not be negative", p.LossRTO)
	case p.NackInterval < 0:
		return fmt.Errorf("params: nack interval %d must not be negative", p.NackInterval)
	}
	if err := p.DCQCN.Validate(); err != nil {
		return fmt.Errorf("params: dcqcn: %w", err)
	}
	return nil
}

// dcqcnFor returns the DCQCN constants of a NIC of the given rate.
func (p *Params) dcqcnFor(rate int64) dcqcn.Params {
	d := p.DCQCN
	d.AI = int64(float64(d.AI) * float64(rate) / float64(control.RefRate))
	d.HAI = int64(float64(d.HAI) * float64(rate) / float64(control.RefRate))
	return d
}
