package p4rt

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	p4v1 "github.com/p4lang/p4runtime/go/p4/v1"
	"google.golang.org/grpc/codes"

	"graphcc/p4src"
)

// PacketInQueue is how many received PacketIns a Switch holds for
// ReceivePacket; the stream goroutine drops (and counts) any beyond it
// rather than wait, so a slow reader never delays arbitration updates.
const PacketInQueue = 1024

// PacketIn is a frame the switch's pipeline sent to its controller: for
// graphcc.p4, an in-band frame (EtherType p4src.EtherTypeInband) that
// arrived on a data port.
type PacketIn struct {
	Port    uint32 // the BMv2 port it arrived on (packet_in's ingress_port)
	Payload []byte // the frame, from its Ethernet header on
	// At is when the stream goroutine received it: what follows (a
	// channel, the reader's scheduling) is the client's own delay.
	At time.Time
}

// PacketStats counts a Switch's in-band traffic.
type PacketStats struct {
	Sent      uint64 // PacketOuts sent
	Received  uint64 // PacketIns queued for ReceivePacket
	Dropped   uint64 // PacketIns dropped: the queue was full
	Malformed uint64 // PacketIns dropped: no valid ingress port metadata
	// OutErrors counts the stream errors the server sent about
	// PacketOuts it could not inject; LastOutError is the newest.
	OutErrors    uint64
	LastOutError string
}

type packetCounters struct {
	sent, received, dropped, malformed, outErrors atomic.Uint64

	mu      sync.Mutex
	lastErr string
}

// UseP4Info tells the switch the P4Info of the pipeline it runs when this
// client did not install it (SetPipeline does): SendPacket and the
// PacketIns need its controller packet metadata ids.
func (s *Switch) UseP4Info(info *P4Info) {
	s.mu.Lock()
	s.names = info
	s.mu.Unlock()
}

func (s *Switch) p4info() *P4Info {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.names
}

// SendPacket sends frame (from its Ethernet header on) as a PacketOut on
// the stream channel, with packet_out's egress_port metadata set to port
// and any other packet_out metadata to 0; graphcc.p4 sends a frame of
// EtherType p4src.EtherTypeInband out of that port in the control queue
// and drops any other. It waits for ctx while another SendPacket holds the
// stream; the send itself blocks only while gRPC flow control holds it,
// and Close ends it. A PacketOut the switch cannot inject is not an error
// here: the server reports it later on the stream (PacketStats.OutErrors).
func (s *Switch) SendPacket(ctx context.Context, port uint32, frame []byte) error {
	info := s.p4info()
	if info == nil {
		return fmt.Errorf("switch %s: packet-out: no P4Info (SetPipeline or UseP4Info first)", s.name)
	}
	if port >= 1<<p4src.PortBits {
		return fmt.Errorf("switch %s: packet-out: port %d does not fit in %d bits", s.name, port, p4src.PortBits)
	}
	if err := s.alive(); err != nil {
		return err
	}
	meta := make([]*p4v1.PacketMetadata, 0, 1+len(info.outPad))
	meta = append(meta, &p4v1.PacketMetadata{MetadataId: info.MetaEgressPort, Value: EncodeUint(uint64(port))})
	for _, id := range info.outPad {
		meta = append(meta, &p4v1.PacketMetadata{MetadataId: id, Value: []byte{0}})
	}
	req := &p4v1.StreamMessageRequest{Update: &p4v1.StreamMessageRequest_Packet{
		Packet: &p4v1.PacketOut{Payload: frame, Metadata: meta},
	}}
	select {
	case s.sendMu <- struct{}{}:
	case <-ctx.Done():
		return fmt.Errorf("switch %s: packet-out to port %d: %w", s.name, port, ctx.Err())
	case <-s.done:
		return s.alive()
	}
	err := s.stream.Send(req)
	<-s.sendMu
	if err != nil {
		return fmt.Errorf("switch %s: packet-out to port %d: %w", s.name, port, err)
	}
	s.stats.sent.Add(1)
	return nil
}

// ReceivePacket returns the oldest PacketIn not yet returned, waiting for
// one until ctx ends or the stream does (then it returns the stream's
// error, after every queued PacketIn).
func (s *Switch) ReceivePacket(ctx context.Context) (PacketIn, error) {
	select {
	case p := <-s.pkts:
		return p, nil
	default:
	}
	select {
	case p := <-s.pkts:
		return p, nil
	case <-ctx.Done():
		return PacketIn{}, fmt.Errorf("switch %s: packet-in: %w", s.name, ctx.Err())
	case <-s.done:
		select {
		case p := <-s.pkts:
			return p, nil
		default:
		}
		return PacketIn{}, s.alive()
	}
}

// PacketStats returns the switch's in-band counts so far.
func (s *Switch) PacketStats() PacketStats {
	s.stats.mu.Lock()
	last := s.stats.lastErr
	s.stats.mu.Unlock()
	return PacketStats{
		Sent:         s.stats.sent.Load(),
		Received:     s.stats.received.Load(),
		Dropped:      s.stats.dropped.Load(),
		Malformed:    s.stats.malformed.Load(),
		OutErrors:    s.stats.outErrors.Load(),
		LastOutError: last,
	}
}

// packetIn queues a PacketIn for ReceivePacket, or drops and counts it.
func (s *Switch) packetIn(p *p4v1.PacketIn) {
	info := s.p4info()
	port, ok := uint64(0), false
	if info != nil {
		for _, m := range p.GetMetadata() {
			if m.GetMetadataId() == info.MetaIngressPort {
				v, err := DecodeUint(m.GetValue(), p4src.PortBits)
				port, ok = v, err == nil
			}
		}
	}
	if !ok {
		s.stats.malformed.Add(1)
		return
	}
	select {
	case s.pkts <- PacketIn{Port: uint32(port), Payload: p.GetPayload(), At: time.Now()}:
		s.stats.received.Add(1)
	default:
		s.stats.dropped.Add(1)
	}
}

// streamError records the server's report of a PacketOut it could not
// inject; other stream errors concern nothing graphcc sends.
func (s *Switch) streamError(e *p4v1.StreamError) {
	if e.GetPacketOut() == nil {
		return
	}
	s.stats.outErrors.Add(1)
	s.stats.mu.Lock()
	s.stats.lastErr = fmt.Sprintf("%v: %s", codes.Code(e.GetCanonicalCode()), e.GetMessage())
	s.stats.mu.Unlock()
}
