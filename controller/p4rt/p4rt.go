package p4rt

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	p4configv1 "github.com/p4lang/p4runtime/go/p4/config/v1"
	p4v1 "github.com/p4lang/p4runtime/go/p4/v1"
	"golang.org/x/sync/errgroup"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/status"
)

// P4Runtime client timeouts.
const (
	// ArbitrationTimeout bounds Dial's wait for the switch's answer to the
	// arbitration request, whatever the caller's context allows.
	ArbitrationTimeout = 10 * time.Second
	// CloseTimeout bounds Close's wait for the stream to end.
	CloseTimeout = 5 * time.Second
)

// Switch is a P4Runtime client of one device: it holds the gRPC
// connection and the StreamChannel on which it is the primary controller.
// One goroutine owns the stream: it reads arbitration updates and ends with
// the stream's error, which Err and Done report. A Switch is safe for
// concurrent use.
type Switch struct {
	name     string
	deviceID uint64
	election *p4v1.Uint128

	conn   *grpc.ClientConn
	rt     p4v1.P4RuntimeClient
	stream p4v1.P4Runtime_StreamChannelClient
	stop   context.CancelFunc // ends the stream
	arb    chan *p4v1.MasterArbitrationUpdate
	done   chan struct{} // closed when the stream goroutine has returned
	sendMu chan struct{} // one token: held while sending on the stream
	pkts   chan PacketIn // PacketIns received, at most PacketInQueue
	stats  packetCounters

	mu      sync.Mutex
	err     error   // why the stream ended; nil while it runs
	names   *P4Info // set by SetPipeline or UseP4Info
	primary bool    // the last arbitration update made this client primary
	closed  bool
}

// Dial connects to the P4Runtime server at target for device deviceID,
// opens the stream channel and becomes the primary controller with
// electionID (the highest election id of the device's clients is primary;
// 0 is refused, as P4Runtime reserves it for backups). name names the
// switch in every error. opts are added to the defaults (insecure transport
// credentials); the testbed dials inside a switch's network namespace with
// grpc.WithContextDialer. A target without a scheme reaches the dialer
// unresolved ("passthrough:///"). Dial fails if the switch does not answer
// within ctx and ArbitrationTimeout, or if another client is primary.
func Dial(ctx context.Context, name, target string, deviceID, electionID uint64, opts ...grpc.DialOption) (*Switch, error) {
	if electionID == 0 {
		return nil, fmt.Errorf("switch %s: election id 0 cannot be primary", name)
	}
	if !strings.Contains(target, ":///") {
		target = "passthrough:///" + target
	}
	opts = append([]grpc.DialOption{grpc.WithTransportCredentials(insecure.NewCredentials())}, opts...)
	conn, err := grpc.NewClient(target, opts...)
	if err != nil {
		return nil, fmt.Errorf("switch %s: dial %s: %w", name, target, err)
	}
	s := &Switch{
		name:     name,
		deviceID: deviceID,
		election: &p4v1.Uint128{Low: electionID},
		conn:     conn,
		rt:       p4v1.NewP4RuntimeClient(conn),
		arb:      make(chan *p4v1.MasterArbitrationUpdate, 1),
		done:     make(chan struct{}),
		sendMu:   make(chan struct{}, 1),
		pkts:     make(chan PacketIn, PacketInQueue),
	}
	// The stream outlives ctx (which only bounds Dial): Close ends it.
	sctx, stop := context.WithCancel(context.WithoutCancel(ctx))
	s.stop = stop
	stream, err := s.rt.StreamChannel(sctx)
	if err == nil {
		s.stream = stream
		err = stream.Send(&p4v1.StreamMessageRequest{Update: &p4v1.StreamMessageRequest_Arbitration{
			Arbitration: &p4v1.MasterArbitrationUpdate{DeviceId: deviceID, ElectionId: s.election},
		}})
	}
	if err != nil {
		stop()
		conn.Close()
		return nil, fmt.Errorf("switch %s: open stream: %w", name, err)
	}
	var g errgroup.Group
	g.Go(func() error { return s.receive(sctx) })
	go func() {
		err := g.Wait()
		s.mu.Lock()
		s.err = err
		s.mu.Unlock()
		close(s.done)
	}()
	if err := s.awaitPrimary(ctx); err != nil {
		s.Close()
		return nil, err
	}
	return s, nil
}

// receive owns the stream's receiving side until it ends. It returns nil
// when Close ended it, or the error that ended it.
func (s *Switch) receive(ctx context.Context) error {
	for {
		msg, err := s.stream.Recv()
		if err != nil {
			if ctx.Err() != nil {
				return nil
			}
			if err == io.EOF {
				return fmt.Errorf("switch %s: stream closed by the server", s.name)
			}
			return fmt.Errorf("switch %s: stream: %w", s.name, err)
		}
		switch u := msg.Update.(type) {
		case *p4v1.StreamMessageResponse_Arbitration:
			s.mu.Lock()
			s.primary = u.Arbitration.GetStatus().GetCode() == int32(codes.OK)
			s.mu.Unlock()
			select { // keep only the newest for awaitPrimary
			case <-s.arb:
			default:
			}
			s.arb <- u.Arbitration
		case *p4v1.StreamMessageResponse_Packet:
			s.packetIn(u.Packet)
		case *p4v1.StreamMessageResponse_Error:
			s.streamError(u.Error)
		}
		// Other messages (digests, idle timeouts) concern nothing graphcc
		// asks for.
	}
}

func (s *Switch) awaitPrimary(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, ArbitrationTimeout)
	defer cancel()
	select {
	case a := <-s.arb:
		if c := codes.Code(a.GetStatus().GetCode()); c != codes.OK {
			return fmt.Errorf("switch %s: not primary with election id %d (primary holds %s): %v %s",
				s.name, s.election.GetLow(), formatElection(a.GetElectionId()), c, a.GetStatus().GetMessage())
		}
		return nil
	case <-s.done:
		return s.Err()
	case <-ctx.Done():
		return fmt.Errorf("switch %s: wait for arbitration: %w", s.name, ctx.Err())
	}
}

func formatElection(id *p4v1.Uint128) string {
	if id.GetHigh() != 0 {
		return fmt.Sprintf("%d:%d", id.GetHigh(), id.GetLow())
	}
	return fmt.Sprint(id.GetLow())
}

// Name returns the switch's name.
func (s *Switch) Name() string { return s.name }

// Done is closed when the stream channel has ended.
func (s *Switch) Done() <-chan struct{} { return s.done }

// Err returns why the stream channel ended (nil while it runs, and after
// Close).
func (s *Switch) Err() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.err
}

// Primary reports whether the switch's last arbitration update made this
// client the primary controller.
func (s *Switch) Primary() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.primary
}

// Close ends the stream channel and the connection, waiting at most
// CloseTimeout for the stream goroutine; it can be called more than once.
func (s *Switch) Close() error {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil
	}
	s.closed = true
	s.mu.Unlock()
	if s.stream != nil {
		// CloseSend must not run beside a Send; if a SendPacket is under
		// way, ending the stream (stop) ends it instead.
		select {
		case s.sendMu <- struct{}{}:
			s.stream.CloseSend()
			<-s.sendMu
		default:
		}
	}
	s.stop()
	t := time.NewTimer(CloseTimeout)
	defer t.Stop()
	var err error
	select {
	case <-s.done:
	case <-t.C:
		err = fmt.Errorf("switch %s: stream did not end within %v", s.name, CloseTimeout)
	}
	if cerr := s.conn.Close(); cerr != nil {
		err = errors.Join(err, fmt.Errorf("switch %s: close connection: %w", s.name, cerr))
	}
	return err
}

// alive returns the stream's error if it has ended: a switch whose stream
// is gone no longer has a primary controller.
func (s *Switch) alive() error {
	select {
	case <-s.done:
		if err := s.Err(); err != nil {
			return err
		}
		return fmt.Errorf("switch %s: closed", s.name)
	default:
		return nil
	}
}

// Capabilities returns the P4Runtime API version the server implements.
func (s *Switch) Capabilities(ctx context.Context) (string, error) {
	r, err := s.rt.Capabilities(ctx, &p4v1.CapabilitiesRequest{})
	if err != nil {
		return "", fmt.Errorf("switch %s: capabilities: %w", s.name, err)
	}
	return r.GetP4RuntimeApiVersion(), nil
}

// SetPipeline installs a forwarding pipeline (VERIFY_AND_COMMIT): its
// P4Info and the target's device config (for BMv2, the JSON p4c-bm2-ss
// writes). Every table is then empty and every counter zero.
func (s *Switch) SetPipeline(ctx context.Context, info *P4Info, deviceConfig []byte) error {
	if err := s.alive(); err != nil {
		return err
	}
	_, err := s.rt.SetForwardingPipelineConfig(ctx, &p4v1.SetForwardingPipelineConfigRequest{
		DeviceId:   s.deviceID,
		ElectionId: s.election,
		Action:     p4v1.SetForwardingPipelineConfigRequest_VERIFY_AND_COMMIT,
		Config:     &p4v1.ForwardingPipelineConfig{P4Info: info.Proto, P4DeviceConfig: deviceConfig},
	})
	if err != nil {
		return fmt.Errorf("switch %s: set pipeline: %w", s.name, err)
	}
	s.mu.Lock()
	s.names = info
	s.mu.Unlock()
	return nil
}

// Pipeline returns the P4Info of the pipeline the switch runs.
func (s *Switch) Pipeline(ctx context.Context) (*p4configv1.P4Info, error) {
	r, err := s.rt.GetForwardingPipelineConfig(ctx, &p4v1.GetForwardingPipelineConfigRequest{
		DeviceId:     s.deviceID,
		ResponseType: p4v1.GetForwardingPipelineConfigRequest_P4INFO_AND_COOKIE,
	})
	if err != nil {
		return nil, fmt.Errorf("switch %s: get pipeline: %w", s.name, err)
	}
	return r.GetConfig().GetP4Info(), nil
}

// Write sends updates in one WriteRequest. If the server rejects some, the
// error names the switch and each failed update (index, type, table) with
// the server's reason; the server's gRPC status stays reachable through
// status.FromError. Writing no update sends nothing.
func (s *Switch) Write(ctx context.Context, updates ...*p4v1.Update) error {
	if len(updates) == 0 {
		return nil
	}
	if err := s.alive(); err != nil {
		return err
	}
	_, err := s.rt.Write(ctx, &p4v1.WriteRequest{
		DeviceId:   s.deviceID,
		ElectionId: s.election,
		Updates:    updates,
		Atomicity:  p4v1.WriteRequest_CONTINUE_ON_ERROR,
	})
	if err != nil {
		return &WriteError{Switch: s.name, Failed: s.failedUpdates(err, updates), err: err}
	}
	return nil
}

// WriteError is a Write the server rejected, wholly or in part.
type WriteError struct {
	Switch string
	Failed []string // one line per failed update, when the server said which
	err    error    // the gRPC error
}

func (e *WriteError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "switch %s: write: %v", e.Switch, e.err)
	for i, f := range e.Failed {
		if i == 3 {
			fmt.Fprintf(&b, "; and %d more", len(e.Failed)-i)
			break
		}
		b.WriteString("; ")
		b.WriteString(f)
	}
	return b.String()
}

// Unwrap returns the gRPC error.
func (e *WriteError) Unwrap() error { return e.err }

// failedUpdates reads the per-update p4.v1.Error details P4Runtime servers
// attach to a failed Write (one per update, in order).
func (s *Switch) failedUpdates(err error, updates []*p4v1.Update) []string {
	st, ok := status.FromError(err)
	if !ok {
		return nil
	}
	s.mu.Lock()
	names := s.names
	s.mu.Unlock()
	var failed []string
	for i, d := range st.Details() {
		pe, ok := d.(*p4v1.Error)
		if !ok || codes.Code(pe.GetCanonicalCode()) == codes.OK || i >= len(updates) {
			continue
		}
		what := "entity"
		if te := updates[i].GetEntity().GetTableEntry(); te != nil {
			what = "table " + fmt.Sprintf("%#08x", te.GetTableId())
			if names != nil {
				what = "table " + names.Name(te.GetTableId())
			}
		}
		failed = append(failed, fmt.Sprintf("update %d (%v %s): %v: %s",
			i, updates[i].GetType(), what, codes.Code(pe.GetCanonicalCode()), pe.GetMessage()))
	}
	return failed
}

// CounterValue is one cell of an indirect counter array.
type CounterValue struct {
	Counter uint32 // P4Info id
	Index   int64
	Packets int64
	Bytes   int64
}

// ReadCounters reads counter cells, each entry a single cell or (without
// an index) a whole array, all in one ReadRequest; it appends the values
// to dst and returns it.
func (s *Switch) ReadCounters(ctx context.Context, dst []CounterValue, entries []*p4v1.CounterEntry) ([]CounterValue, error) {
	ents := make([]*p4v1.Entity, len(entries))
	for i, e := range entries {
		ents[i] = &p4v1.Entity{Entity: &p4v1.Entity_CounterEntry{CounterEntry: e}}
	}
	err := s.read(ctx, ents, func(e *p4v1.Entity) {
		if c := e.GetCounterEntry(); c != nil {
			dst = append(dst, CounterValue{
				Counter: c.GetCounterId(), Index: c.GetIndex().GetIndex(),
				Packets: c.GetData().GetPacketCount(), Bytes: c.GetData().GetByteCount(),
			})
		}
	})
	if err != nil {
		return dst, fmt.Errorf("switch %s: read %d counter entries: %w", s.name, len(entries), err)
	}
	return dst, nil
}

// ReadTable returns every entry of table (not its default entry).
func (s *Switch) ReadTable(ctx context.Context, table uint32) ([]*p4v1.TableEntry, error) {
	var entries []*p4v1.TableEntry
	ent := &p4v1.Entity{Entity: &p4v1.Entity_TableEntry{TableEntry: &p4v1.TableEntry{TableId: table}}}
	err := s.read(ctx, []*p4v1.Entity{ent}, func(e *p4v1.Entity) {
		if t := e.GetTableEntry(); t != nil {
			entries = append(entries, t)
		}
	})
	if err != nil {
		name := fmt.Sprintf("%#08x", table)
		s.mu.Lock()
		if s.names != nil {
			name = s.names.Name(table)
		}
		s.mu.Unlock()
		return nil, fmt.Errorf("switch %s: read table %s: %w", s.name, name, err)
	}
	return entries, nil
}

func (s *Switch) read(ctx context.Context, entities []*p4v1.Entity, each func(*p4v1.Entity)) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	rc, err := s.rt.Read(ctx, &p4v1.ReadRequest{DeviceId: s.deviceID, Entities: entities})
	if err != nil {
		return err
	}
	for {
		r, err := rc.Recv()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		for _, e := range r.GetEntities() {
			each(e)
		}
	}
}
