package p4rt

import (
	"context"
	"fmt"
	"io"
	"net"
	"slices"
	"strings"
	"sync"
	"testing"

	p4configv1 "github.com/p4lang/p4runtime/go/p4/config/v1"
	p4v1 "github.com/p4lang/p4runtime/go/p4/v1"
	rpcstatus "google.golang.org/genproto/googleapis/rpc/status"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/anypb"
)

// fakeP4RT is an in-process P4Runtime server for one device, strict where
// BMv2's (PI) is: stream arbitration by election id, writes only from the
// primary and only after a pipeline is set, entries checked against the
// P4Info (ids, match kinds, widths, priorities, action refs and params),
// INSERT of an existing entry and MODIFY or DELETE of a missing one
// rejected with per-update p4.v1.Error details, table and counter reads
// (also wildcard). Tests set counter values and inject failures.
type fakeP4RT struct {
	p4v1.UnimplementedP4RuntimeServer
	deviceID uint64

	mu        sync.Mutex
	streams   map[*fakeStream]bool
	primary   *fakeStream // highest election id among streams
	info      *p4configv1.P4Info
	config    []byte
	tables    map[uint32]*p4configv1.Table
	actions   map[uint32]*p4configv1.Action
	ctrSpec   map[uint32]*p4configv1.Counter
	entries   map[uint32]map[string]*p4v1.TableEntry // table -> key -> entry
	counters  map[uint32]map[int64]*p4v1.CounterData
	writes    []*p4v1.WriteRequest
	reads     int               // ReadRequests received
	failWrite error             // returned by the next Write, then cleared
	failRead  error             // returned by the next Read, then cleared
	outs      []*p4v1.PacketOut // PacketOuts accepted
	echo      bool              // answer each accepted PacketOut with a PacketIn
}

type fakeStream struct {
	mu       sync.Mutex // serializes Send
	ss       p4v1.P4Runtime_StreamChannelServer
	election *p4v1.Uint128
}

// errFake is a failure tests inject.
var errFake = status.Error(codes.Internal, "injected failure")

func newFakeP4RT(deviceID uint64) *fakeP4RT {
	return &fakeP4RT{deviceID: deviceID, streams: make(map[*fakeStream]bool)}
}

// serveFake starts f on a loopback TCP port; the server stops when the test
// ends (or earlier through the returned server).
func serveFake(tb testing.TB, f *fakeP4RT) (addr string, srv *grpc.Server) {
	tb.Helper()
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	srv = grpc.NewServer()
	p4v1.RegisterP4RuntimeServer(srv, f)
	go srv.Serve(lis)
	tb.Cleanup(srv.Stop)
	return lis.Addr().String(), srv
}

func electionLess(a, b *p4v1.Uint128) bool {
	if a.GetHigh() != b.GetHigh() {
		return a.GetHigh() < b.GetHigh()
	}
	return a.GetLow() < b.GetLow()
}

func (st *fakeStream) send(m *p4v1.StreamMessageResponse) {
	st.mu.Lock()
	defer st.mu.Unlock()
	st.ss.Send(m)
}

func (f *fakeP4RT) arbitration(to *fakeStream) *p4v1.StreamMessageResponse {
	code, msg := codes.OK, "is primary"
	var id *p4v1.Uint128
	if f.primary != nil {
		id = f.primary.election
	}
	if to != f.primary {
		code, msg = codes.AlreadyExists, "is not primary"
	}
	return &p4v1.StreamMessageResponse{Update: &p4v1.StreamMessageResponse_Arbitration{Arbitration: &p4v1.MasterArbitrationUpdate{
		DeviceId: f.deviceID, ElectionId: id, Status: &rpcstatus.Status{Code: int32(code), Message: msg},
	}}}
}

// elect recomputes the primary; it tells every stream if it changed, and
// always tells also.
func (f *fakeP4RT) elect(also *fakeStream) {
	var best *fakeStream
	for st := range f.streams {
		if best == nil || electionLess(best.election, st.election) {
			best = st
		}
	}
	changed := best != f.primary
	f.primary = best
	for st := range f.streams {
		if changed || st == also {
			st.send(f.arbitration(st))
		}
	}
}

func (f *fakeP4RT) StreamChannel(ss p4v1.P4Runtime_StreamChannelServer) error {
	st := &fakeStream{ss: ss}
	defer func() {
		f.mu.Lock()
		if f.streams[st] {
			delete(f.streams, st)
			f.elect(nil)
		}
		f.mu.Unlock()
	}()
	for {
		m, err := ss.Recv()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		if p := m.GetPacket(); p != nil {
			f.packetOut(st, p)
			continue
		}
		a := m.GetArbitration()
		if a == nil {
			continue
		}
		if a.GetDeviceId() != f.deviceID {
			return status.Errorf(codes.NotFound, "no device %d", a.GetDeviceId())
		}
		if a.GetElectionId() == nil {
			return status.Error(codes.InvalidArgument, "no election id")
		}
		f.mu.Lock()
		for other := range f.streams {
			if other != st && proto.Equal(other.election, a.GetElectionId()) {
				f.mu.Unlock()
				return status.Error(codes.InvalidArgument, "election id in use")
			}
		}
		st.election = a.GetElectionId()
		f.streams[st] = true
		f.elect(st)
		f.mu.Unlock()
	}
}

func (f *fakeP4RT) Capabilities(context.Context, *p4v1.CapabilitiesRequest) (*p4v1.CapabilitiesResponse, error) {
	return &p4v1.CapabilitiesResponse{P4RuntimeApiVersion: "1.4.1"}, nil
}

func (f *fakeP4RT) checkPrimary(device uint64, election *p4v1.Uint128) error {
	if device != f.deviceID {
		return status.Errorf(codes.NotFound, "no device %d", device)
	}
	if f.primary == nil || !proto.Equal(f.primary.election, election) {
		return status.Error(codes.PermissionDenied, "not the primary controller")
	}
	return nil
}

func (f *fakeP4RT) SetForwardingPipelineConfig(_ context.Context, r *p4v1.SetForwardingPipelineConfigRequest) (*p4v1.SetForwardingPipelineConfigResponse, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if err := f.checkPrimary(r.GetDeviceId(), r.GetElectionId()); err != nil {
		return nil, err
	}
	if r.GetAction() != p4v1.SetForwardingPipelineConfigRequest_VERIFY_AND_COMMIT {
		return nil, status.Errorf(codes.Unimplemented, "action %v", r.GetAction())
	}
	cfg := r.GetConfig()
	if cfg.GetP4Info() == nil || len(cfg.GetP4DeviceConfig()) == 0 {
		return nil, status.Error(codes.InvalidArgument, "config without P4Info or device config")
	}
	f.info = proto.Clone(cfg.GetP4Info()).(*p4configv1.P4Info)
	f.config = slices.Clone(cfg.GetP4DeviceConfig())
	f.tables = make(map[uint32]*p4configv1.Table)
	f.actions = make(map[uint32]*p4configv1.Action)
	f.ctrSpec = make(map[uint32]*p4configv1.Counter)
	f.entries = make(map[uint32]map[string]*p4v1.TableEntry)
	f.counters = make(map[uint32]map[int64]*p4v1.CounterData)
	for _, t := range f.info.GetTables() {
		f.tables[t.GetPreamble().GetId()] = t
		f.entries[t.GetPreamble().GetId()] = make(map[string]*p4v1.TableEntry)
	}
	for _, a := range f.info.GetActions() {
		f.actions[a.GetPreamble().GetId()] = a
	}
	for _, c := range f.info.GetCounters() {
		f.ctrSpec[c.GetPreamble().GetId()] = c
		f.counters[c.GetPreamble().GetId()] = make(map[int64]*p4v1.CounterData)
	}
	return &p4v1.SetForwardingPipelineConfigResponse{}, nil
}

func (f *fakeP4RT) GetForwardingPipelineConfig(_ context.Context, r *p4v1.GetForwardingPipelineConfigRequest) (*p4v1.GetForwardingPipelineConfigResponse, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.info == nil {
		return nil, status.Error(codes.FailedPrecondition, "no pipeline")
	}
	return &p4v1.GetForwardingPipelineConfigResponse{Config: &p4v1.ForwardingPipelineConfig{P4Info: f.info}}, nil
}

func (f *fakeP4RT) Write(_ context.Context, r *p4v1.WriteRequest) (*p4v1.WriteResponse, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if err := f.checkPrimary(r.GetDeviceId(), r.GetElectionId()); err != nil {
		return nil, err
	}
	if f.info == nil {
		return nil, status.Error(codes.FailedPrecondition, "no pipeline")
	}
	if err := f.failWrite; err != nil {
		f.failWrite = nil
		return nil, err
	}
	f.writes = append(f.writes, proto.Clone(r).(*p4v1.WriteRequest))
	details := make([]*anypb.Any, len(r.GetUpdates()))
	failed := false
	for i, u := range r.GetUpdates() {
		pe := &p4v1.Error{CanonicalCode: int32(codes.OK)}
		if err := f.apply(u); err != nil {
			st, _ := status.FromError(err)
			pe = &p4v1.Error{CanonicalCode: int32(st.Code()), Message: st.Message()}
			failed = true
		}
		details[i], _ = anypb.New(pe)
	}
	if failed {
		st := &rpcstatus.Status{Code: int32(codes.Unknown), Message: "write failure", Details: details}
		return nil, status.ErrorProto(st)
	}
	return &p4v1.WriteResponse{}, nil
}

// apply checks and applies one update.
func (f *fakeP4RT) apply(u *p4v1.Update) error {
	te := u.GetEntity().GetTableEntry()
	if te == nil {
		return status.Error(codes.Unimplemented, "only table entries are written")
	}
	key, err := f.checkEntry(te, u.GetType() != p4v1.Update_DELETE)
	if err != nil {
		return err
	}
	tab := f.entries[te.GetTableId()]
	_, exists := tab[key]
	switch u.GetType() {
	case p4v1.Update_INSERT:
		if exists {
			return status.Error(codes.AlreadyExists, "entry exists")
		}
		tab[key] = canonical(te)
	case p4v1.Update_MODIFY:
		if !exists {
			return status.Error(codes.NotFound, "no such entry")
		}
		tab[key] = canonical(te)
	case p4v1.Update_DELETE:
		if !exists {
			return status.Error(codes.NotFound, "no such entry")
		}
		delete(tab, key)
	default:
		return status.Errorf(codes.InvalidArgument, "update type %v", u.GetType())
	}
	return nil
}

// canonical returns a copy of a checked entry with every bytestring in
// canonical form, as PI stores and returns them.
func canonical(te *p4v1.TableEntry) *p4v1.TableEntry {
	c := proto.Clone(te).(*p4v1.TableEntry)
	canon := func(b []byte) []byte {
		v, _ := DecodeUint(b, 64)
		return EncodeUint(v)
	}
	for _, m := range c.GetMatch() {
		switch mt := m.GetFieldMatchType().(type) {
		case *p4v1.FieldMatch_Exact_:
			mt.Exact.Value = canon(mt.Exact.Value)
		case *p4v1.FieldMatch_Lpm:
			mt.Lpm.Value = canon(mt.Lpm.Value)
		case *p4v1.FieldMatch_Range_:
			mt.Range.Low, mt.Range.High = canon(mt.Range.Low), canon(mt.Range.High)
		}
	}
	for _, p := range c.GetAction().GetAction().GetParams() {
		p.Value = canon(p.Value)
	}
	return c
}

func fits(b []byte, width int32) error {
	_, err := DecodeUint(b, int(width))
	if err != nil {
		return status.Error(codes.InvalidArgument, err.Error())
	}
	return nil
}

// checkEntry validates te against the P4Info and returns its match key.
func (f *fakeP4RT) checkEntry(te *p4v1.TableEntry, needAction bool) (string, error) {
	t, ok := f.tables[te.GetTableId()]
	if !ok {
		return "", status.Errorf(codes.NotFound, "no table %#x", te.GetTableId())
	}
	prio := false
	fields := make(map[uint32]*p4configv1.MatchField)
	for _, mf := range t.GetMatchFields() {
		fields[mf.GetId()] = mf
		switch mf.GetMatchType() {
		case p4configv1.MatchField_TERNARY, p4configv1.MatchField_RANGE, p4configv1.MatchField_OPTIONAL:
			prio = true
		}
	}
	if prio != (te.GetPriority() > 0) || te.GetPriority() < 0 {
		return "", status.Errorf(codes.InvalidArgument, "priority %d for a table that needs one: %v", te.GetPriority(), prio)
	}
	var key []string
	seen := make(map[uint32]bool)
	for _, m := range te.GetMatch() {
		mf, ok := fields[m.GetFieldId()]
		if !ok || seen[m.GetFieldId()] {
			return "", status.Errorf(codes.InvalidArgument, "match field %d unknown or repeated", m.GetFieldId())
		}
		seen[m.GetFieldId()] = true
		w := mf.GetBitwidth()
		var k string
		switch mt := m.GetFieldMatchType().(type) {
		case *p4v1.FieldMatch_Exact_:
			if mf.GetMatchType() != p4configv1.MatchField_EXACT {
				return "", status.Errorf(codes.InvalidArgument, "field %s is not exact", mf.GetName())
			}
			if err := fits(mt.Exact.GetValue(), w); err != nil {
				return "", err
			}
			v, _ := DecodeUint(mt.Exact.GetValue(), int(w))
			k = fmt.Sprintf("%d=%d", m.GetFieldId(), v)
		case *p4v1.FieldMatch_Lpm:
			if mf.GetMatchType() != p4configv1.MatchField_LPM {
				return "", status.Errorf(codes.InvalidArgument, "field %s is not lpm", mf.GetName())
			}
			if err := fits(mt.Lpm.GetValue(), w); err != nil {
				return "", err
			}
			pl := mt.Lpm.GetPrefixLen()
			if pl <= 0 || pl > w {
				return "", status.Errorf(codes.InvalidArgument, "prefix length %d of %d bits", pl, w)
			}
			v, _ := DecodeUint(mt.Lpm.GetValue(), int(w))
			if v&(1<<(w-pl)-1) != 0 {
				return "", status.Errorf(codes.InvalidArgument, "bits beyond the prefix are set")
			}
			k = fmt.Sprintf("%d=%d/%d", m.GetFieldId(), v, pl)
		case *p4v1.FieldMatch_Range_:
			if mf.GetMatchType() != p4configv1.MatchField_RANGE {
				return "", status.Errorf(codes.InvalidArgument, "field %s is not range", mf.GetName())
			}
			if err := fits(mt.Range.GetLow(), w); err != nil {
				return "", err
			}
			if err := fits(mt.Range.GetHigh(), w); err != nil {
				return "", err
			}
			lo, _ := DecodeUint(mt.Range.GetLow(), int(w))
			hi, _ := DecodeUint(mt.Range.GetHigh(), int(w))
			if lo > hi || lo == 0 && hi == 1<<w-1 {
				return "", status.Errorf(codes.InvalidArgument, "range [%d, %d] is empty or a don't-care", lo, hi)
			}
			k = fmt.Sprintf("%d=%d..%d", m.GetFieldId(), lo, hi)
		default:
			return "", status.Errorf(codes.Unimplemented, "match type %T", mt)
		}
		key = append(key, k)
	}
	for id, mf := range fields {
		if mf.GetMatchType() == p4configv1.MatchField_EXACT && !seen[id] {
			return "", status.Errorf(codes.InvalidArgument, "exact field %s missing", mf.GetName())
		}
	}
	slices.Sort(key)
	key = append(key, fmt.Sprintf("prio=%d", te.GetPriority()))
	if !needAction {
		return strings.Join(key, ","), nil
	}
	act := te.GetAction().GetAction()
	if act == nil {
		return "", status.Error(codes.InvalidArgument, "no direct action")
	}
	allowed := false
	for _, ref := range t.GetActionRefs() {
		if ref.GetId() == act.GetActionId() && ref.GetScope() != p4configv1.ActionRef_DEFAULT_ONLY {
			allowed = true
		}
	}
	a, ok := f.actions[act.GetActionId()]
	if !allowed || !ok {
		return "", status.Errorf(codes.InvalidArgument, "action %#x not allowed in table %s", act.GetActionId(), t.GetPreamble().GetName())
	}
	if len(act.GetParams()) != len(a.GetParams()) {
		return "", status.Errorf(codes.InvalidArgument, "action %s: %d params, want %d", a.GetPreamble().GetName(), len(act.GetParams()), len(a.GetParams()))
	}
	pseen := make(map[uint32]bool)
	for _, p := range act.GetParams() {
		var spec *p4configv1.Action_Param
		for _, ps := range a.GetParams() {
			if ps.GetId() == p.GetParamId() {
				spec = ps
			}
		}
		if spec == nil || pseen[p.GetParamId()] {
			return "", status.Errorf(codes.InvalidArgument, "action %s: param %d unknown or repeated", a.GetPreamble().GetName(), p.GetParamId())
		}
		pseen[p.GetParamId()] = true
		if err := fits(p.GetValue(), spec.GetBitwidth()); err != nil {
			return "", err
		}
	}
	return strings.Join(key, ","), nil
}

func (f *fakeP4RT) Read(r *p4v1.ReadRequest, rs p4v1.P4Runtime_ReadServer) error {
	f.mu.Lock()
	f.reads++
	if err := f.failRead; err != nil {
		f.failRead = nil
		f.mu.Unlock()
		return err
	}
	if r.GetDeviceId() != f.deviceID {
		f.mu.Unlock()
		return status.Errorf(codes.NotFound, "no device %d", r.GetDeviceId())
	}
	if f.info == nil {
		f.mu.Unlock()
		return status.Error(codes.FailedPrecondition, "no pipeline")
	}
	var out []*p4v1.Entity
	for _, e := range r.GetEntities() {
		switch x := e.GetEntity().(type) {
		case *p4v1.Entity_TableEntry:
			for id, tab := range f.entries {
				if x.TableEntry.GetTableId() != 0 && x.TableEntry.GetTableId() != id {
					continue
				}
				keys := slices.Sorted(func(yield func(string) bool) {
					for k := range tab {
						if !yield(k) {
							return
						}
					}
				})
				for _, k := range keys {
					out = append(out, &p4v1.Entity{Entity: &p4v1.Entity_TableEntry{TableEntry: proto.Clone(tab[k]).(*p4v1.TableEntry)}})
				}
			}
		case *p4v1.Entity_CounterEntry:
			for id, spec := range f.ctrSpec {
				ce := x.CounterEntry
				if ce.GetCounterId() != 0 && ce.GetCounterId() != id {
					continue
				}
				lo, hi := int64(0), spec.GetSize()
				if ce.GetIndex() != nil {
					lo = ce.GetIndex().GetIndex()
					if lo < 0 || lo >= spec.GetSize() {
						f.mu.Unlock()
						return status.Errorf(codes.OutOfRange, "counter %s index %d", spec.GetPreamble().GetName(), lo)
					}
					hi = lo + 1
				}
				for i := lo; i < hi; i++ {
					d := &p4v1.CounterData{}
					if v := f.counters[id][i]; v != nil {
						d.PacketCount, d.ByteCount = v.PacketCount, v.ByteCount
					}
					if spec.GetSpec().GetUnit() == p4configv1.CounterSpec_PACKETS {
						d.ByteCount = 0
					}
					out = append(out, &p4v1.Entity{Entity: &p4v1.Entity_CounterEntry{CounterEntry: &p4v1.CounterEntry{
						CounterId: id, Index: &p4v1.Index{Index: i}, Data: d,
					}}})
				}
			}
		default:
			f.mu.Unlock()
			return status.Errorf(codes.Unimplemented, "read of %T", x)
		}
	}
	f.mu.Unlock()
	// Answer in chunks, as a server may.
	for len(out) > 0 {
		n := min(len(out), 100)
		if err := rs.Send(&p4v1.ReadResponse{Entities: out[:n]}); err != nil {
			return err
		}
		out = out[n:]
	}
	return nil
}

// setCounter sets one counter cell.
func (f *fakeP4RT) setCounter(id uint32, index, packets, bytes int64) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.counters[id][index] = &p4v1.CounterData{PacketCount: packets, ByteCount: bytes}
}

// lastWrite returns the last WriteRequest the server received and the
// number received.
func (f *fakeP4RT) lastWrite() (*p4v1.WriteRequest, int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.writes) == 0 {
		return nil, 0
	}
	return f.writes[len(f.writes)-1], len(f.writes)
}

func (f *fakeP4RT) readCount() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.reads
}

func (f *fakeP4RT) setFailures(write, read error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.failWrite, f.failRead = write, read
}

// packetOut checks a PacketOut as PI does (from the primary, a pipeline
// set, every packet_out metadata field once and fitting its width) and
// answers a bad one with a StreamError; with echo set it sends the payload
// back as a PacketIn whose ingress_port is the egress_port (a port looped
// back to itself).
func (f *fakeP4RT) packetOut(st *fakeStream, p *p4v1.PacketOut) {
	f.mu.Lock()
	defer f.mu.Unlock()
	fail := func(code codes.Code, msg string) {
		st.send(&p4v1.StreamMessageResponse{Update: &p4v1.StreamMessageResponse_Error{Error: &p4v1.StreamError{
			CanonicalCode: int32(code), Message: msg,
			Details: &p4v1.StreamError_PacketOut{PacketOut: &p4v1.PacketOutError{PacketOut: p}},
		}}})
	}
	if st != f.primary || f.info == nil {
		fail(codes.PermissionDenied, "not primary or no pipeline")
		return
	}
	var port []byte
	for _, h := range f.info.GetControllerPacketMetadata() {
		if h.GetPreamble().GetName() != "packet_out" {
			continue
		}
		for _, want := range h.GetMetadata() {
			n := 0
			for _, m := range p.GetMetadata() {
				if m.GetMetadataId() == want.GetId() {
					n++
					if err := fits(m.GetValue(), want.GetBitwidth()); err != nil {
						fail(codes.InvalidArgument, fmt.Sprintf("metadata %s: %v", want.GetName(), err))
						return
					}
					if want.GetName() == "egress_port" {
						port = m.GetValue()
					}
				}
			}
			if n != 1 {
				fail(codes.InvalidArgument, fmt.Sprintf("metadata %s given %d times", want.GetName(), n))
				return
			}
		}
	}
	f.outs = append(f.outs, p)
	if f.echo {
		f.sendPacketIn(p.GetPayload(), &p4v1.PacketMetadata{MetadataId: f.metaID("packet_in", "ingress_port"), Value: port})
	}
}

// sendPacketIn sends a PacketIn to the primary; f.mu is held.
func (f *fakeP4RT) sendPacketIn(payload []byte, meta ...*p4v1.PacketMetadata) {
	if f.primary != nil {
		f.primary.send(&p4v1.StreamMessageResponse{Update: &p4v1.StreamMessageResponse_Packet{
			Packet: &p4v1.PacketIn{Payload: payload, Metadata: meta},
		}})
	}
}

func (f *fakeP4RT) injectPacketIn(payload []byte, meta ...*p4v1.PacketMetadata) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.sendPacketIn(payload, meta...)
}

func (f *fakeP4RT) packetOuts() []*p4v1.PacketOut {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.outs)
}

func (f *fakeP4RT) setEcho(on bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.echo = on
}

// metaID returns the id of a controller packet metadata field; f.mu is
// held.
func (f *fakeP4RT) metaID(header, name string) uint32 {
	for _, h := range f.info.GetControllerPacketMetadata() {
		if h.GetPreamble().GetName() == header {
			for _, m := range h.GetMetadata() {
				if m.GetName() == name {
					return m.GetId()
				}
			}
		}
	}
	return 0
}
