package p4rt

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	p4v1 "github.com/p4lang/p4runtime/go/p4/v1"
)

// inbandFrame is an Ethernet frame of the in-band EtherType with payload
// text: what the per-switch agents send (their message layer is theirs;
// this channel carries it opaque).
func inbandFrame(text string) []byte {
	f := []byte{0x02, 0, 0, 0, 0, 2, 0x02, 0, 0, 0, 0, 1, 0x88, 0xB5}
	return append(f, text...)
}

// pipelineFake serves a fake with graphcc.p4's pipeline installed by a
// primary client, which it returns.
func pipelineFake(t *testing.T, ctx context.Context) (*fakeP4RT, *Switch) {
	t.Helper()
	f := newFakeP4RT(1)
	addr, _ := serveFake(t, f)
	s := dialFake(t, ctx, "leaf0", addr, 1, 10)
	if err := s.SetPipeline(ctx, testP4Info(t), testDeviceConfig); err != nil {
		t.Fatal(err)
	}
	return f, s
}

func TestPacketRoundTrip(t *testing.T) {
	ctx := testCtx(t)
	f, s := pipelineFake(t, ctx)
	f.setEcho(true)
	info := testP4Info(t)
	ports := []uint32{1, 2, 63, 0, 511}
	for i, p := range ports {
		if err := s.SendPacket(ctx, p, inbandFrame(fmt.Sprint("msg ", i))); err != nil {
			t.Fatal(err)
		}
	}
	for i, p := range ports {
		got, err := s.ReceivePacket(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if got.Port != p || !bytes.Equal(got.Payload, inbandFrame(fmt.Sprint("msg ", i))) {
			t.Errorf("packet-in %d: port %d payload %q, want port %d", i, got.Port, got.Payload, p)
		}
	}
	outs := f.packetOuts()
	if len(outs) != len(ports) {
		t.Fatalf("fake got %d packet-outs, want %d", len(outs), len(ports))
	}
	for i, o := range outs {
		var port []byte
		for _, m := range o.GetMetadata() {
			switch m.GetMetadataId() {
			case info.MetaEgressPort:
				port = m.GetValue()
			case info.outPad[0]:
				if !bytes.Equal(m.GetValue(), []byte{0}) {
					t.Errorf("packet-out %d: pad %x", i, m.GetValue())
				}
			default:
				t.Errorf("packet-out %d: unknown metadata id %d", i, m.GetMetadataId())
			}
		}
		if v, err := DecodeUint(port, 9); err != nil || uint32(v) != ports[i] {
			t.Errorf("packet-out %d: egress_port %x, want %d", i, port, ports[i])
		}
	}
	if st := s.PacketStats(); st.Sent != 5 || st.Received != 5 || st.Dropped+st.Malformed+st.OutErrors != 0 {
		t.Errorf("stats %+v", st)
	}
}

func TestPacketErrors(t *testing.T) {
	ctx := testCtx(t)
	f := newFakeP4RT(1)
	addr, _ := serveFake(t, f)
	s := dialFake(t, ctx, "leaf0", addr, 1, 10)
	// No P4Info yet: no metadata ids.
	if err := s.SendPacket(ctx, 1, inbandFrame("x")); err == nil || !strings.Contains(err.Error(), "switch leaf0: packet-out: no P4Info") {
		t.Errorf("without P4Info: %v", err)
	}
	// The client knows the P4Info, the server runs no pipeline: the server
	// refuses on the stream, asynchronously.
	s.UseP4Info(testP4Info(t))
	if err := s.SendPacket(ctx, 1, inbandFrame("x")); err != nil {
		t.Fatal(err)
	}
	if err := s.SendPacket(ctx, 512, inbandFrame("x")); err == nil || !strings.Contains(err.Error(), "port 512 does not fit in 9 bits") {
		t.Errorf("port 512: %v", err)
	}
	waitStats(t, ctx, s, func(st PacketStats) bool { return st.OutErrors > 0 })
	if st := s.PacketStats(); st.OutErrors != 1 || !strings.Contains(st.LastOutError, "PermissionDenied") {
		t.Errorf("stats %+v, want one PermissionDenied packet-out error", st)
	}
	// PacketIns without a readable ingress port are dropped and counted.
	f.injectPacketIn(inbandFrame("no port"))
	f.injectPacketIn(inbandFrame("wide port"), &p4v1.PacketMetadata{MetadataId: testP4Info(t).MetaIngressPort, Value: []byte{2, 0}})
	f.injectPacketIn(inbandFrame("last"), &p4v1.PacketMetadata{MetadataId: testP4Info(t).MetaIngressPort, Value: []byte{0, 7}})
	if p, err := s.ReceivePacket(ctx); err != nil || p.Port != 7 || !bytes.Equal(p.Payload, inbandFrame("last")) {
		t.Fatalf("ReceivePacket = %+v, %v", p, err)
	}
	if st := s.PacketStats(); st.Malformed != 2 {
		t.Errorf("stats %+v, want 2 malformed", st)
	}
	// A cancelled context ends the wait.
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := s.ReceivePacket(cctx); !errors.Is(err, context.Canceled) || !strings.Contains(err.Error(), "switch leaf0: packet-in") {
		t.Errorf("cancelled ReceivePacket: %v", err)
	}
	// Closed: both ends refuse.
	s.Close()
	if err := s.SendPacket(ctx, 1, inbandFrame("x")); err == nil || !strings.Contains(err.Error(), "switch leaf0") {
		t.Errorf("SendPacket after Close: %v", err)
	}
	if _, err := s.ReceivePacket(ctx); err == nil || !strings.Contains(err.Error(), "switch leaf0") {
		t.Errorf("ReceivePacket after Close: %v", err)
	}
}

// A reader that does not keep up loses PacketIns beyond the queue, counted,
// and the stream goes on: arbitration, writes and reads still work.
func TestPacketInQueueBounded(t *testing.T) {
	ctx := testCtx(t)
	f, s := pipelineFake(t, ctx)
	id := testP4Info(t).MetaIngressPort
	const extra = 10
	for i := range PacketInQueue + extra {
		f.injectPacketIn(inbandFrame(fmt.Sprint(i)), &p4v1.PacketMetadata{MetadataId: id, Value: []byte{1}})
	}
	waitStats(t, ctx, s, func(st PacketStats) bool { return st.Received+st.Dropped == PacketInQueue+extra })
	if st := s.PacketStats(); st.Received != PacketInQueue || st.Dropped != extra {
		t.Errorf("stats %+v, want %d received and %d dropped", st, PacketInQueue, extra)
	}
	for i := range PacketInQueue {
		p, err := s.ReceivePacket(ctx)
		if err != nil || !bytes.Equal(p.Payload, inbandFrame(fmt.Sprint(i))) {
			t.Fatalf("packet-in %d: %q, %v", i, p.Payload, err)
		}
	}
	if !s.Primary() {
		t.Error("no longer primary")
	}
	if err := s.Write(ctx, Updates(p4v1.Update_INSERT, DepthBucketEntries(testP4Info(t)))...); err != nil {
		t.Fatal(err)
	}
}

// waitStats polls s's packet counts until done holds (or ctx ends).
func waitStats(t *testing.T, ctx context.Context, s *Switch, done func(PacketStats) bool) {
	t.Helper()
	for !done(s.PacketStats()) {
		select {
		case <-ctx.Done():
			t.Fatalf("packet stats %+v: %v", s.PacketStats(), ctx.Err())
		case <-time.After(time.Millisecond):
		}
	}
}

// PacketOuts, PacketIns, counter reads and table writes share the
// connection from several goroutines without disturbing one another.
func TestPacketsBesideReadsAndWrites(t *testing.T) {
	ctx := testCtx(t)
	f, s := pipelineFake(t, ctx)
	f.setEcho(true)
	info := testP4Info(t)
	f.setCounter(info.TxPort, 2, 7, 7000)
	const n = 200
	var wg sync.WaitGroup
	errs := make(chan error, 4)
	wg.Add(3)
	go func() { // sender
		defer wg.Done()
		for i := range n {
			if err := s.SendPacket(ctx, uint32(1+i%2), inbandFrame(fmt.Sprint(i))); err != nil {
				errs <- err
				return
			}
		}
	}()
	go func() { // receiver
		defer wg.Done()
		for i := range n {
			p, err := s.ReceivePacket(ctx)
			if err != nil {
				errs <- err
				return
			}
			if p.Port != uint32(1+i%2) || !bytes.Equal(p.Payload, inbandFrame(fmt.Sprint(i))) {
				errs <- fmt.Errorf("packet-in %d: port %d payload %q", i, p.Port, p.Payload)
				return
			}
		}
	}()
	go func() { // the control step's reads and writes
		defer wg.Done()
		for i := range 20 {
			vals, err := s.ReadCounters(ctx, nil, counterCells(info.TxPort, 2))
			if err != nil || len(vals) != 1 || vals[0].Bytes != 7000 {
				errs <- fmt.Errorf("read %d: %v %v", i, vals, err)
				return
			}
			typ := p4v1.Update_MODIFY
			if i == 0 {
				typ = p4v1.Update_INSERT
			}
			e := ECNParams{KMin: uint32(1000 * (i + 1)), KMax: uint32(2000 * (i + 1)), PMax: 1 << 15}
			if err := s.Write(ctx, Updates(typ, []*p4v1.TableEntry{ECNEntry(info, 2, e)})...); err != nil {
				errs <- fmt.Errorf("write %d: %v", i, err)
				return
			}
		}
	}()
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if st := s.PacketStats(); st.Sent != n || st.Received != n || st.Dropped != 0 {
		t.Errorf("stats %+v", st)
	}
}

// Whatever metadata a PacketIn carries, decoding it neither panics nor
// yields a port beyond 9 bits, and one it queues carries the time it was
// received; one without a readable ingress_port is counted malformed.
func FuzzPacketIn(f *testing.F) {
	info := testP4Info(f)
	f.Add(info.MetaIngressPort, []byte{1}, []byte("frame"))
	f.Add(info.MetaIngressPort, []byte{0, 0, 1, 0xff}, []byte{})
	f.Add(info.MetaIngressPort, []byte{2, 0}, []byte{0x88})
	f.Add(uint32(99), []byte{1}, []byte("x"))
	f.Fuzz(func(t *testing.T, id uint32, value, payload []byte) {
		s := &Switch{names: info, pkts: make(chan PacketIn, 1)}
		before := time.Now()
		s.packetIn(&p4v1.PacketIn{Payload: payload, Metadata: []*p4v1.PacketMetadata{{MetadataId: id, Value: value}}})
		st := s.PacketStats()
		if st.Received+st.Malformed != 1 {
			t.Fatalf("stats %+v after one PacketIn", st)
		}
		if st.Received == 1 {
			p := <-s.pkts
			if p.Port >= 1<<9 || !bytes.Equal(p.Payload, payload) || p.At.Before(before) || p.At.After(time.Now()) {
				t.Fatalf("PacketIn %+v from value %x", p, value)
			}
			if v, err := DecodeUint(value, 9); id != info.MetaIngressPort || err != nil || uint32(v) != p.Port {
				t.Fatalf("accepted id %d value %x as port %d", id, value, p.Port)
			}
		}
	})
}
