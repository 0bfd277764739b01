package p4rt

import (
	"context"
	"fmt"

	p4v1 "github.com/p4lang/p4runtime/go/p4/v1"
	"golang.org/x/sync/errgroup"

	"graphcc/control"
	"graphcc/controller/lab"
)

// Fabric programs and reads every switch of a lab.Plan through P4Runtime,
// one Switch client per switch: the part of the control loop that talks to
// BMv2. Every call works on all switches in parallel with
// one batched request per switch, and fails naming the first switch that
// failed. Not safe for concurrent use.
type Fabric struct {
	plan     *lab.Plan
	info     *P4Info
	switches []*Switch // by lab.Plan.Switches index
	tel      []*SwitchTelemetry
	vals     [][]CounterValue // per switch, reused
	query    [][]*p4v1.CounterEntry
	ecn      []control.ECN // the settings the switches hold, by topo.PortID
	depth    []int64       // BMv2 queue depth per topo.PortID, or nil
}

// NewFabric returns the runtime of plan's fabric over switches, connected
// clients in lab.Plan.Switches order.
func NewFabric(plan *lab.Plan, info *P4Info, switches []*Switch) (*Fabric, error) {
	if len(switches) != len(plan.Switches) {
		return nil, fmt.Errorf("fabric runtime: %d clients for %d switches", len(switches), len(plan.Switches))
	}
	r := &Fabric{plan: plan, info: info, switches: switches}
	r.tel = make([]*SwitchTelemetry, len(switches))
	r.query = make([][]*p4v1.CounterEntry, len(switches))
	if err := r.newTelemetry(); err != nil {
		return nil, err
	}
	r.vals = make([][]CounterValue, len(switches))
	return r, nil
}

// SetQueueDepths gives the BMv2 egress queue depth, packets, of every
// switch port (by topo.PortID; 0: not known), as the lab set them, so that
// telemetry reads skip the queue-depth cells no packet can reach (see
// SwitchTelemetry). Without it every cell is read. Telemetry counts its
// next interval from the next read.
func (r *Fabric) SetQueueDepths(depth []int64) error {
	old := r.depth
	r.depth = depth
	if err := r.newTelemetry(); err != nil {
		r.depth = old
		return err
	}
	return nil
}

// newTelemetry makes every switch's telemetry decoder and query afresh.
func (r *Fabric) newTelemetry() error {
	tel := make([]*SwitchTelemetry, len(r.plan.Switches))
	for i := range r.plan.Switches {
		t, err := NewSwitchTelemetry(r.info, r.plan, i, r.depth)
		if err != nil {
			return err
		}
		tel[i] = t
	}
	for i, t := range tel {
		r.tel[i], r.query[i] = t, t.Query()
	}
	return nil
}

// Program pushes the pipeline (the P4Info and deviceConfig, BMv2's JSON)
// to every switch and inserts its initial entries with the ECN settings
// ecn (indexed by topo.PortID), one WriteRequest per switch. Telemetry
// then counts from zero.
func (r *Fabric) Program(ctx context.Context, deviceConfig []byte, ecn []control.ECN) error {
	updates := make([][]*p4v1.Update, len(r.switches))
	for i := range r.switches {
		entries, err := InitialEntries(r.info, r.plan, i, ecn)
		if err != nil {
			return err
		}
		updates[i] = Updates(p4v1.Update_INSERT, entries)
	}
	g, gctx := errgroup.WithContext(ctx)
	for i, s := range r.switches {
		g.Go(func() error {
			if err := s.SetPipeline(gctx, r.info, deviceConfig); err != nil {
				return err
			}
			return s.Write(gctx, updates[i]...)
		})
	}
	if err := g.Wait(); err != nil {
		return err
	}
	r.ecn = append(r.ecn[:0], ecn...)
	return r.newTelemetry() // counters restart with the pipeline
}

// ReadTelemetry reads every switch's counters (one ReadRequest each) and
// writes the interval's samples of every switch port and host port into
// dst, indexed by topo.PortID (len(dst) must be the fabric's port count).
// On error dst is partly written and the switches that were read count
// their next interval from this read.
func (r *Fabric) ReadTelemetry(ctx context.Context, dst []control.PortSample) error {
	if len(dst) != len(r.plan.Fabric.Ports) {
		return fmt.Errorf("fabric runtime: %d samples for %d ports", len(dst), len(r.plan.Fabric.Ports))
	}
	g, gctx := errgroup.WithContext(ctx)
	for i, s := range r.switches {
		g.Go(func() error {
			vals, err := s.ReadCounters(gctx, r.vals[i][:0], r.query[i])
			r.vals[i] = vals
			if err != nil {
				return err
			}
			return r.tel[i].Decode(dst, vals) // switches write disjoint ports
		})
	}
	return g.Wait()
}

// SetECN writes the settings of ecn (indexed by topo.PortID) that differ
// from what the switches hold: one WriteRequest of MODIFY updates per
// switch with a change. It returns the number of entries written. A switch
// that fails does not stop the others' writes (so after a switch dies,
// SetECN with the static settings still restores every live switch); a
// switch whose write failed may hold any mix of its old and new settings,
// so the next SetECN writes every entry of it.
func (r *Fabric) SetECN(ctx context.Context, ecn []control.ECN) (int, error) {
	if len(r.ecn) == 0 {
		return 0, fmt.Errorf("fabric runtime: set ECN before Program")
	}
	updates := make([][]*p4v1.Update, len(r.switches))
	n := 0
	for i := range r.switches {
		entries, err := ECNChanges(r.info, r.plan, i, r.ecn, ecn)
		if err != nil {
			return 0, err
		}
		updates[i] = Updates(p4v1.Update_MODIFY, entries)
		n += len(entries)
	}
	// One switch's failure does not cancel the others' writes: the caller
	// needs every switch that can be in a known state.
	var g errgroup.Group
	ok := make([]bool, len(r.switches))
	for i, s := range r.switches {
		if len(updates[i]) == 0 {
			continue
		}
		g.Go(func() error {
			if err := s.Write(ctx, updates[i]...); err != nil {
				return err
			}
			ok[i] = true
			return nil
		})
	}
	err := g.Wait()
	for i, sp := range r.plan.Switches {
		if len(updates[i]) == 0 {
			continue
		}
		held := ecn
		if !ok[i] {
			// A WriteRequest may fail after some of its updates took
			// effect: what the switch holds is not known, so all of its
			// entries are written next time.
			held = nil
		}
		for _, pp := range sp.Ports {
			if held != nil {
				r.ecn[pp.Port] = held[pp.Port]
			} else {
				r.ecn[pp.Port] = unknownECN
			}
		}
	}
	if err != nil {
		return 0, err
	}
	return n, nil
}

// unknownECN marks, in Fabric.ecn, a port whose setting is not
// known: it equals no valid setting, so SetECN writes the port.
var unknownECN = control.ECN{KMin: -1, KMax: -1, PMax: -1}

// ECN returns the settings the switches hold, indexed by topo.PortID
// (host ports carry whatever Program was given; the ports of a switch
// whose last write failed carry an invalid setting, kmin -1: unknown); the
// caller must not modify it.
func (r *Fabric) ECN() []control.ECN { return r.ecn }

// Switches returns the clients, in lab.Plan.Switches order.
func (r *Fabric) Switches() []*Switch { return r.switches }
