package agent

import (
	"context"
	"fmt"
	"time"

	p4v1 "github.com/p4lang/p4runtime/go/p4/v1"
	"google.golang.org/grpc"

	"graphcc/control"
	"graphcc/controller/lab"
	"graphcc/controller/p4rt"
	"graphcc/p4src"
	"graphcc/topo"
)

// P4Switch is an agent's Switch on the testbed: a P4Runtime client of its
// one switch, as the primary controller, over a pipeline another client
// pushed.
type P4Switch struct {
	sw    *p4rt.Switch
	info  *p4rt.P4Info
	plan  *lab.Plan
	index int
	tel   *p4rt.SwitchTelemetry
	query []*p4v1.CounterEntry
	vals  []p4rt.CounterValue
	held  []control.ECN // what the switch holds, by PortID; nil: not known
	out   map[topo.PortID]uint32
	in    [p4src.PortSlots]topo.PortID // by BMv2 port: the neighbour's egress port on that link, -1 if none
}

// DialSwitch dials switch index of the live lab lb (laid out by plan)
// inside its namespace as the primary controller of election electionID,
// which must exceed the controller's, for the pipeline info the controller
// pushed; its telemetry counts from the first read.
func DialSwitch(ctx context.Context, lb *lab.Lab, plan *lab.Plan, index int, info *p4rt.P4Info, electionID uint64) (*P4Switch, error) {
	if index < 0 || index >= len(plan.Switches) {
		return nil, fmt.Errorf("lab %s has no switch %d", plan.Lab, index)
	}
	sp := plan.Switches[index]
	depth, err := lb.State().QueueDepths(len(plan.Fabric.Ports))
	if err != nil {
		return nil, err
	}
	tel, err := p4rt.NewSwitchTelemetry(info, plan, index, depth)
	if err != nil {
		return nil, err
	}
	sw, err := p4rt.Dial(ctx, sp.Name, lab.GRPCAddr, sp.DeviceID, electionID, grpc.WithContextDialer(lb.Dialer(index)))
	if err != nil {
		return nil, err
	}
	sw.UseP4Info(info)
	return newP4Switch(sw, info, plan, index, tel), nil
}

func newP4Switch(sw *p4rt.Switch, info *p4rt.P4Info, plan *lab.Plan, index int, tel *p4rt.SwitchTelemetry) *P4Switch {
	s := &P4Switch{sw: sw, info: info, plan: plan, index: index, tel: tel, query: tel.Query(), out: map[topo.PortID]uint32{}}
	for i := range s.in {
		s.in[i] = -1
	}
	for _, pp := range plan.Switches[index].Ports {
		s.out[pp.Port] = uint32(pp.Num)
		if int(pp.Num) < len(s.in) {
			s.in[pp.Num] = pp.Port.Reverse()
		}
	}
	return s
}

// Name returns the switch's name.
func (s *P4Switch) Name() string { return s.sw.Name() }

// Client returns the P4Runtime client.
func (s *P4Switch) Client() *p4rt.Switch { return s.sw }

// Close closes the client.
func (s *P4Switch) Close() error { return s.sw.Close() }

// ReadTelemetry reads the switch's counters (one ReadRequest) into dst.
func (s *P4Switch) ReadTelemetry(ctx context.Context, dst []control.PortSample) error {
	vals, err := s.sw.ReadCounters(ctx, s.vals[:0], s.query)
	s.vals = vals
	if err != nil {
		return err
	}
	return s.tel.Decode(dst, vals)
}

// SetECN writes the switch's changed settings in one WriteRequest; the
// first call writes every entry (what the switch holds is not known).
func (s *P4Switch) SetECN(ctx context.Context, ecn []control.ECN) (int, error) {
	entries, err := p4rt.ECNChanges(s.info, s.plan, s.index, s.held, ecn)
	if err != nil {
		return 0, err
	}
	if err := s.sw.Write(ctx, p4rt.Updates(p4v1.Update_MODIFY, entries)...); err != nil {
		s.held = nil
		return 0, err
	}
	s.held = append(s.held[:0], ecn...)
	return len(entries), nil
}

// Send sends frame as a PacketOut on the BMv2 port of egress port out.
func (s *P4Switch) Send(ctx context.Context, out topo.PortID, frame []byte) error {
	num, ok := s.out[out]
	if !ok {
		return fmt.Errorf("switch %s: port %d is not one of its own", s.Name(), out)
	}
	return s.sw.SendPacket(ctx, num, frame)
}

// Receive returns the next PacketIn, the link it came in on, named by the
// neighbour's egress port, and when the stream received it; a PacketIn on
// a port without a link is skipped.
func (s *P4Switch) Receive(ctx context.Context) (topo.PortID, []byte, time.Time, error) {
	for {
		p, err := s.sw.ReceivePacket(ctx)
		if err != nil {
			return -1, nil, time.Time{}, err
		}
		if int(p.Port) < len(s.in) && s.in[p.Port] >= 0 {
			return s.in[p.Port], p.Payload, p.At, nil
		}
	}
}
