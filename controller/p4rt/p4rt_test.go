package p4rt

import (
	"bytes"
	"context"
	"errors"
	"net"
	"strings"
	"testing"
	"time"

	p4v1 "github.com/p4lang/p4runtime/go/p4/v1"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/grpc/test/bufconn"
	"google.golang.org/protobuf/proto"

	"graphcc/control"
	"graphcc/p4src"
	"graphcc/topo"
)

// testCtx bounds a test's P4Runtime calls so a broken client fails the test
// instead of hanging it; no assertion depends on it.
func testCtx(t testing.TB) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	t.Cleanup(cancel)
	return ctx
}

var testDeviceConfig = p4src.BMv2JSON

// dialFake dials a fake server as the primary and closes the client when
// the test ends.
func dialFake(t testing.TB, ctx context.Context, name, addr string, device, election uint64) *Switch {
	t.Helper()
	s, err := Dial(ctx, name, addr, device, election)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func TestArbitration(t *testing.T) {
	ctx := testCtx(t)
	f := newFakeP4RT(1)
	addr, _ := serveFake(t, f)
	info := testP4Info(t)

	a := dialFake(t, ctx, "leaf0", addr, 1, 10)
	if !a.Primary() {
		t.Error("first client is not primary")
	}
	if v, err := a.Capabilities(ctx); err != nil || v != "1.4.1" {
		t.Errorf("Capabilities = %q, %v", v, err)
	}

	// A lower election id is refused.
	_, err := Dial(ctx, "leaf0", addr, 1, 5)
	if err == nil || !strings.Contains(err.Error(), "switch leaf0: not primary with election id 5 (primary holds 10)") {
		t.Errorf("lower election id: %v", err)
	}
	// Election id 0 and the wrong device are refused.
	if _, err := Dial(ctx, "leaf0", addr, 1, 0); err == nil || !strings.Contains(err.Error(), "switch leaf0: election id 0") {
		t.Errorf("election id 0: %v", err)
	}
	if _, err := Dial(ctx, "leaf0", addr, 2, 50); err == nil || !strings.Contains(err.Error(), "switch leaf0") {
		t.Errorf("wrong device: %v", err)
	}
	// a is still primary and can push a pipeline.
	if err := a.SetPipeline(ctx, info, testDeviceConfig); err != nil {
		t.Fatal(err)
	}
	// A higher election id takes over: a's writes are then refused.
	b := dialFake(t, ctx, "leaf0", addr, 1, 20)
	if !b.Primary() {
		t.Error("higher election id is not primary")
	}
	err = a.Write(ctx, Updates(p4v1.Update_INSERT, DepthBucketEntries(info))...)
	if status.Code(err) != codes.PermissionDenied || !strings.Contains(err.Error(), "switch leaf0") {
		t.Errorf("write of a demoted client: %v", err)
	}
	if err := b.Write(ctx, Updates(p4v1.Update_INSERT, DepthBucketEntries(info))...); err != nil {
		t.Errorf("write of the new primary: %v", err)
	}
}

func TestDialWithContextDialer(t *testing.T) {
	ctx := testCtx(t)
	lis := bufconn.Listen(1 << 20)
	srv := grpc.NewServer()
	p4v1.RegisterP4RuntimeServer(srv, newFakeP4RT(3))
	go srv.Serve(lis)
	t.Cleanup(srv.Stop)
	dialed := 0
	s, err := Dial(ctx, "spine0", "127.0.0.1:9559", 3, 1, grpc.WithContextDialer(func(ctx context.Context, addr string) (net.Conn, error) {
		dialed++
		if addr != "127.0.0.1:9559" {
			t.Errorf("dialer got %q", addr)
		}
		return lis.DialContext(ctx)
	}))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if dialed == 0 || !s.Primary() {
		t.Errorf("dialer used %d times, primary %v", dialed, s.Primary())
	}
}

func TestDialNoServer(t *testing.T) {
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := lis.Addr().String()
	lis.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	_, err = Dial(ctx, "leaf3", addr, 1, 1)
	if err == nil || !strings.Contains(err.Error(), "switch leaf3") {
		t.Errorf("dial of nothing: %v", err)
	}
}

// The initial program of leaf0 of the default Clos is one WriteRequest with
// every entry, with the P4Info's ids and canonical bytestrings.
func TestWriteRequestLeaf(t *testing.T) {
	ctx := testCtx(t)
	info := testP4Info(t)
	p := mustPlan(t, topo.DefaultClos())
	leaf := &p.Switches[0]
	f := newFakeP4RT(leaf.DeviceID)
	addr, _ := serveFake(t, f)
	s := dialFake(t, ctx, leaf.Name, addr, leaf.DeviceID, 7)
	if err := s.SetPipeline(ctx, info, testDeviceConfig); err != nil {
		t.Fatal(err)
	}
	ecn := control.StaticSettings(p.Fabric)
	entries, err := InitialEntries(info, p, 0, ecn)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Write(ctx, Updates(p4v1.Update_INSERT, entries)...); err != nil {
		t.Fatal(err)
	}
	req, n := f.lastWrite()
	if n != 1 {
		t.Fatalf("%d WriteRequests, want 1", n)
	}
	// 2 ECMP members, 24 routes, 24 depth buckets, 8 ports' ECN
	if len(req.GetUpdates()) != 2+24+24+8 {
		t.Fatalf("%d updates, want 58", len(req.GetUpdates()))
	}
	if req.GetDeviceId() != leaf.DeviceID || req.GetElectionId().GetLow() != 7 || req.GetElectionId().GetHigh() != 0 {
		t.Errorf("device %d, election %v", req.GetDeviceId(), req.GetElectionId())
	}
	count := map[uint32]int{}
	for _, u := range req.GetUpdates() {
		if u.GetType() != p4v1.Update_INSERT {
			t.Errorf("update type %v", u.GetType())
		}
		count[u.GetEntity().GetTableEntry().GetTableId()]++
	}
	if count[info.ECMPGroup] != 2 || count[info.IPv4Route] != 24 || count[info.DepthBucket] != 24 || count[info.ECNSettings] != 8 {
		t.Errorf("updates per table: %v", count)
	}

	// Spot checks, byte for byte. Host h7 (10.0.0.8) is on leaf1: a group.
	// Host h0 (10.0.0.1) is on leaf0's port 1. The ECN entry of port 1 (a
	// 25G host link) and of the last port (a 100G spine link).
	route := func(ip []byte) *p4v1.TableEntry {
		for _, u := range req.GetUpdates() {
			te := u.GetEntity().GetTableEntry()
			if te.GetTableId() == info.IPv4Route && bytes.Equal(te.GetMatch()[0].GetLpm().GetValue(), ip) {
				return te
			}
		}
		t.Fatalf("no route to %x", ip)
		return nil
	}
	want := &p4v1.TableEntry{
		TableId: info.IPv4Route,
		Match: []*p4v1.FieldMatch{{FieldId: info.FieldDstAddr, FieldMatchType: &p4v1.FieldMatch_Lpm{
			Lpm: &p4v1.FieldMatch_LPM{Value: []byte{10, 0, 0, 8}, PrefixLen: 32}}}},
		Action: &p4v1.TableAction{Type: &p4v1.TableAction_Action{Action: &p4v1.Action{
			ActionId: info.SetGroup,
			Params:   []*p4v1.Action_Param{{ParamId: info.ParamGroup, Value: []byte{1}}, {ParamId: info.ParamGroupSize, Value: []byte{2}}},
		}}},
	}
	if got := route([]byte{10, 0, 0, 8}); !proto.Equal(got, want) {
		t.Errorf("route to h7:\n got %v\nwant %v", got, want)
	}
	h0 := route([]byte{10, 0, 0, 1}).GetAction().GetAction()
	if h0.GetActionId() != info.SetPort || !bytes.Equal(h0.GetParams()[0].GetValue(), []byte{1}) {
		t.Errorf("route to h0: %v", h0)
	}
	ecnOf := func(num byte) []*p4v1.Action_Param {
		for _, u := range req.GetUpdates() {
			te := u.GetEntity().GetTableEntry()
			if te.GetTableId() == info.ECNSettings && bytes.Equal(te.GetMatch()[0].GetExact().GetValue(), []byte{num}) {
				return te.GetAction().GetAction().GetParams()
			}
		}
		t.Fatalf("no ECN entry for port %d", num)
		return nil
	}
	wantParams := func(num byte, kmin, kmax, pmax []byte) {
		t.Helper()
		ps := ecnOf(num)
		wantPs := []*p4v1.Action_Param{{ParamId: info.ParamKMin, Value: kmin}, {ParamId: info.ParamKMax, Value: kmax}, {ParamId: info.ParamPMax, Value: pmax}}
		for i := range wantPs {
			if !proto.Equal(ps[i], wantPs[i]) {
				t.Errorf("port %d param %d: %v, want %v", num, i, ps[i], wantPs[i])
			}
		}
	}
	wantParams(1, []byte{0x01, 0x86, 0xa0}, []byte{0x06, 0x1a, 0x80}, []byte{0x33, 0x33}) // 100 KB, 400 KB, 0.2
	wantParams(8, []byte{0x06, 0x1a, 0x80}, []byte{0x18, 0x6a, 0x00}, []byte{0x33, 0x33}) // 400 KB, 1.6 MB, 0.2

	// What the switch holds reads back as written.
	got, err := s.ReadTable(ctx, info.ECNSettings)
	if err != nil || len(got) != 8 {
		t.Fatalf("read back %d ECN entries, %v", len(got), err)
	}
	for _, te := range got {
		found := false
		for _, e := range entries {
			found = found || proto.Equal(e, te)
		}
		if !found {
			t.Errorf("read back %v, not written", te)
		}
	}
}

func TestWriteErrorsNameSwitch(t *testing.T) {
	ctx := testCtx(t)
	info := testP4Info(t)
	f := newFakeP4RT(1)
	addr, _ := serveFake(t, f)
	s := dialFake(t, ctx, "spine1", addr, 1, 1)

	// Before the pipeline.
	err := s.Write(ctx, Updates(p4v1.Update_INSERT, DepthBucketEntries(info))...)
	if status.Code(err) != codes.FailedPrecondition || !strings.Contains(err.Error(), "switch spine1") {
		t.Errorf("write before pipeline: %v", err)
	}
	if err := s.SetPipeline(ctx, info, testDeviceConfig); err != nil {
		t.Fatal(err)
	}
	buckets := Updates(p4v1.Update_INSERT, DepthBucketEntries(info))
	if err := s.Write(ctx, buckets...); err != nil {
		t.Fatal(err)
	}
	// INSERT of existing entries: every update fails, the error says which.
	err = s.Write(ctx, buckets[:2]...)
	var we *WriteError
	if !errors.As(err, &we) || we.Switch != "spine1" || len(we.Failed) != 2 {
		t.Fatalf("duplicate insert: %v", err)
	}
	for _, want := range []string{"switch spine1", "update 0 (INSERT table GraphccEgress.depth_bucket): AlreadyExists", "update 1"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q lacks %q", err, want)
		}
	}
	// MODIFY of a missing entry, beside a good one.
	p := mustPlan(t, smallClos())
	ecnEntries, err := ECNEntries(info, p, 0, control.StaticSettings(p.Fabric))
	if err != nil {
		t.Fatal(err)
	}
	mixed := append(Updates(p4v1.Update_INSERT, ecnEntries[:1]), Updates(p4v1.Update_MODIFY, ecnEntries[1:2])...)
	err = s.Write(ctx, mixed...)
	if !errors.As(err, &we) || len(we.Failed) != 1 || !strings.Contains(err.Error(), "update 1 (MODIFY table GraphccEgress.ecn_settings): NotFound") {
		t.Errorf("modify of missing: %v", err)
	}
	// An id the P4Info does not have.
	bad := proto.Clone(ecnEntries[2]).(*p4v1.TableEntry)
	bad.GetAction().GetAction().ActionId = info.SetPort
	if err := s.Write(ctx, Updates(p4v1.Update_INSERT, []*p4v1.TableEntry{bad})...); err == nil || !strings.Contains(err.Error(), "InvalidArgument") {
		t.Errorf("action not in table: %v", err)
	}
	// The server failing a read or a write.
	f.setFailures(status.Error(codes.Internal, "disk on fire"), status.Error(codes.Unavailable, "busy"))
	if err := s.Write(ctx, buckets[:1]...); err == nil || !strings.Contains(err.Error(), "switch spine1: write: rpc error: code = Internal desc = disk on fire") {
		t.Errorf("failed write: %v", err)
	}
	if _, err := s.ReadCounters(ctx, nil, counterCells(info.TxPort)); err == nil || !strings.Contains(err.Error(), "switch spine1: read 1 counter entries") || status.Code(err) != codes.Unavailable {
		t.Errorf("failed read: %v", err)
	}
	if _, err := s.ReadTable(ctx, 12345); err != nil {
		t.Errorf("read of an unknown table: %v", err) // the fake answers nothing
	}
}

func TestServerGoesAway(t *testing.T) {
	ctx := testCtx(t)
	info := testP4Info(t)
	f := newFakeP4RT(1)
	addr, srv := serveFake(t, f)
	s := dialFake(t, ctx, "leaf2", addr, 1, 1)
	if err := s.SetPipeline(ctx, info, testDeviceConfig); err != nil {
		t.Fatal(err)
	}
	srv.Stop()
	<-s.Done()
	if err := s.Err(); err == nil || !strings.Contains(err.Error(), "switch leaf2: stream") {
		t.Errorf("stream error after the server left: %v", err)
	}
	if err := s.Write(ctx, Updates(p4v1.Update_INSERT, DepthBucketEntries(info))...); err == nil || !strings.Contains(err.Error(), "switch leaf2") {
		t.Errorf("write after the server left: %v", err)
	}
	if _, err := s.ReadCounters(ctx, nil, counterCells(info.TxPort, 1, 2)); err == nil || !strings.Contains(err.Error(), "switch leaf2") {
		t.Errorf("read after the server left: %v", err)
	}
	if err := s.Close(); err != nil {
		t.Errorf("close after the server left: %v", err)
	}
	if err := s.Close(); err != nil {
		t.Errorf("second close: %v", err)
	}
}

func TestReadCounters(t *testing.T) {
	ctx := testCtx(t)
	info := testP4Info(t)
	f := newFakeP4RT(1)
	addr, _ := serveFake(t, f)
	s := dialFake(t, ctx, "leaf0", addr, 1, 1)
	if err := s.SetPipeline(ctx, info, testDeviceConfig); err != nil {
		t.Fatal(err)
	}
	f.setCounter(info.TxPort, 3, 7, 7000)
	f.setCounter(info.EnqDepth, 3*24+5, 9, 0)
	reads := f.readCount()
	q := append(counterCells(info.TxPort), counterCells(info.EnqDepth, 3*24+5, 3*24+6)...)
	vals, err := s.ReadCounters(ctx, nil, q)
	if err != nil {
		t.Fatal(err)
	}
	if f.readCount() != reads+1 {
		t.Errorf("%d ReadRequests, want 1", f.readCount()-reads)
	}
	if len(vals) != 64+2 {
		t.Fatalf("%d values, want 66 (a wildcard of 64 and 2 cells)", len(vals))
	}
	got := map[[2]int64]CounterValue{}
	for _, v := range vals {
		got[[2]int64{int64(v.Counter), v.Index}] = v
	}
	if v := got[[2]int64{int64(info.TxPort), 3}]; v.Packets != 7 || v.Bytes != 7000 {
		t.Errorf("tx_port[3] = %+v", v)
	}
	if v := got[[2]int64{int64(info.EnqDepth), 77}]; v.Packets != 9 {
		t.Errorf("enq_depth[77] = %+v", v)
	}
	if _, err := s.ReadCounters(ctx, nil, counterCells(info.TxPort, 64)); status.Code(err) != codes.OutOfRange {
		t.Errorf("index past the array: %v", err)
	}
}

// counterCells returns CounterEntry entities reading counter's cells
// indices, or the whole array if indices is empty (a wildcard read).
func counterCells(counter uint32, indices ...int64) []*p4v1.CounterEntry {
	if len(indices) == 0 {
		return []*p4v1.CounterEntry{{CounterId: counter}}
	}
	e := make([]*p4v1.CounterEntry, len(indices))
	for i, x := range indices {
		e[i] = &p4v1.CounterEntry{CounterId: counter, Index: &p4v1.Index{Index: x}}
	}
	return e
}
