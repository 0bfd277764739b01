package p4rt

import (
	"bytes"
	"context"
	"fmt"
	"net/netip"
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"

	p4v1 "github.com/p4lang/p4runtime/go/p4/v1"
	"github.com/vishvananda/netns"

	"graphcc/controller/lab"
	"graphcc/internal/privtest"
	"graphcc/namespace"
	"graphcc/p4src"
)

// inbandMessages is how many in-band messages TestBMv2Inband sends, and
// over which it reports the PacketOut -> PacketIn latency.
const inbandMessages = 200

// inbandLab is two BMv2 switches running graphcc.p4 in one namespace: A's
// port 1 (veth ab) is cabled to B's port 1 (veth ba); A's port 2 (veth ah)
// has a host end, ha, where the test writes data frames.
type inbandLab struct {
	ns           netns.NsHandle
	a, b         *Switch
	thriftA      int
	thriftB      int
	ha           *psock
	info         *P4Info
	aToB, bFromA uint32 // the cable's BMv2 ports on A and on B
}

func newInbandLab(t testing.TB, ctx context.Context) *inbandLab {
	requireRoot(t)
	requireBinaryP4RT(t, "simple_switch_grpc")
	ns := switchNetns(t, "ib")
	tmp := fmt.Sprintf("gci%d", os.Getpid()%100000)
	for _, pair := range [][2]string{{"ab", "ba"}, {"ah", "ha"}} {
		if err := lab.CreateVeth(lab.Veth{Name: pair[0], NS: ns}, lab.Veth{Name: pair[1], NS: ns}, tmp); err != nil {
			t.Fatal(err)
		}
	}
	l := &inbandLab{ns: ns, info: testP4Info(t), aToB: 1, bFromA: 1}
	l.a, l.thriftA = startBMv2P4RT(t, ctx, "inbandA", 1, ns, "ab", "ah")
	l.b, l.thriftB = startBMv2P4RT(t, ctx, "inbandB", 2, ns, "ba")
	for _, sw := range []*Switch{l.a, l.b} {
		if err := sw.SetPipeline(ctx, l.info, p4src.BMv2JSON); err != nil {
			t.Fatal(err)
		}
	}
	l.ha = packetSocket(t, ns, "ha")
	return l
}

// inbandPayload is an in-band frame of at least 64 bytes whose payload
// names message i.
func inbandPayload(i int) []byte {
	f := inbandFrame(fmt.Sprintf("graphcc in-band test message %d", i))
	for len(f) < 64 {
		f = append(f, '.')
	}
	return f
}

// A PacketOut on A's port facing B reaches B's agent as a PacketIn with
// the payload and the port it arrived on, and is counted nowhere: not in
// A's egress telemetry, not in B's rx_port. A PacketOut of another
// EtherType is dropped. The log line reports the PacketOut -> PacketIn
// latency over inbandMessages messages (both clients in this process).
func TestBMv2Inband(t *testing.T) {
	ctx := testCtx(t)
	l := newInbandLab(t, ctx)
	all := func(portCounterSnap) bool { return true }
	beforeA := readPortCounters(t, ctx, l.a, l.info, all)
	beforeB := readPortCounters(t, ctx, l.b, l.info, all)

	lat := make([]time.Duration, inbandMessages)
	for i := range inbandMessages {
		want := inbandPayload(i)
		t0 := time.Now()
		if err := l.a.SendPacket(ctx, l.aToB, want); err != nil {
			t.Fatal(err)
		}
		got, err := l.b.ReceivePacket(ctx)
		lat[i] = time.Since(t0)
		if err != nil {
			t.Fatalf("message %d: %v", i, err)
		}
		if got.Port != l.bFromA || !bytes.Equal(got.Payload, want) {
			t.Fatalf("message %d: PacketIn on port %d with %q, want port %d with %q", i, got.Port, got.Payload, l.bFromA, want)
		}
	}
	mean, p99 := latencyStats(lat)
	t.Logf("in-band PacketOut -> PacketIn over %d messages: mean %v, p99 %v, max %v", inbandMessages, mean, p99, slices.Max(lat))

	// An IPv4 frame as a PacketOut is dropped at A: the next message is
	// the first thing B sees (its rx_port would count the frame).
	ipv4 := frame(t, "10.0.0.2", 64, 2, 1, 0)
	if err := l.a.SendPacket(ctx, l.aToB, ipv4); err != nil {
		t.Fatal(err)
	}
	if err := l.a.SendPacket(ctx, l.aToB, inbandPayload(-1)); err != nil {
		t.Fatal(err)
	}
	if got, err := l.b.ReceivePacket(ctx); err != nil || !bytes.Equal(got.Payload, inbandPayload(-1)) {
		t.Fatalf("after a non-in-band PacketOut: %q, %v", got.Payload, err)
	}

	afterA := readPortCounters(t, ctx, l.a, l.info, all)
	afterB := readPortCounters(t, ctx, l.b, l.info, all)
	if afterA != beforeA || afterB != beforeB {
		t.Errorf("in-band messages were counted: A %+v -> %+v, B %+v -> %+v", beforeA, afterA, beforeB, afterB)
	}
	for _, sw := range []*Switch{l.a, l.b} {
		if st := sw.PacketStats(); st.Dropped+st.Malformed+st.OutErrors != 0 {
			t.Errorf("switch %s: %+v", sw.Name(), st)
		}
	}
	if st := l.b.PacketStats(); st.Received != inbandMessages+1 {
		t.Errorf("B received %d PacketIns, want %d", st.Received, inbandMessages+1)
	}
}

// latencyStats returns the mean and the 99th percentile (nearest rank).
func latencyStats(lat []time.Duration) (mean, p99 time.Duration) {
	s := slices.Clone(lat)
	slices.Sort(s)
	var sum time.Duration
	for _, d := range s {
		sum += d
	}
	rank := (99*len(s) + 99) / 100 // ceil(0.99 n)
	return sum / time.Duration(len(s)), s[rank-1]
}

// A message overtakes data queued on the same port: with A's port 1 data
// queue held to 5 packets a second and dataFrames ECN-capable frames in
// it, B has the message while most of the data is still at A. Through one
// FIFO the message would arrive after all the frames queued before it.
func TestBMv2InbandControlQueue(t *testing.T) {
	ctx := testCtx(t)
	cli := privtest.Runs(t, lab.DefaultCLIBinary, "p4lang/behavioral-model", "--help")
	l := newInbandLab(t, ctx)
	const dataFrames = 40
	// Every queue of A's port 1 at 5 packets/s, then its control queue at
	// 100000; depth 64 holds the burst.
	cmds := fmt.Sprintf("set_queue_rate 5 %d\nset_queue_rate 100000 %d %d\n", l.aToB, l.aToB, lab.PriorityQueues-1)
	if err := runThriftCLI(ctx, l.ns, cli, l.thriftA, cmds); err != nil {
		t.Fatal(err)
	}
	route := netipRoute(l.info, "10.0.0.2", 1)
	if err := l.a.Write(ctx, Updates(p4v1.Update_INSERT, []*p4v1.TableEntry{route})...); err != nil {
		t.Fatal(err)
	}
	for i := range dataFrames {
		l.ha.send(t, frame(t, "10.0.0.2", 64, 2, uint16(2000+i), uint32(i)))
	}
	// Frames A has taken in are in its port 1 data queue (or gone through
	// it) ahead of the message: BMv2's ingress takes packets one at a time,
	// and the PacketOut enters after this read. Not every frame written on
	// ha reaches A's ingress (32 to 35 of 40 here), so wait for a good part.
	a := readPortCounters(t, ctx, l.a, l.info, func(c portCounterSnap) bool { return c.rx[2] >= dataFrames/2 })
	ahead := a.rx[2]
	if err := l.a.SendPacket(ctx, l.aToB, inbandPayload(0)); err != nil {
		t.Fatal(err)
	}
	got, err := l.b.ReceivePacket(ctx)
	if err != nil || !bytes.Equal(got.Payload, inbandPayload(0)) {
		t.Fatalf("PacketIn %q, %v", got.Payload, err)
	}
	b := readPortCounters(t, ctx, l.b, l.info, func(portCounterSnap) bool { return true })
	a = readPortCounters(t, ctx, l.a, l.info, func(portCounterSnap) bool { return true })
	t.Logf("when B had the message: %d data frames were ahead of it at A; B had received %d (A had sent %d)", ahead, b.rx[1], a.tx[1])
	if b.rx[1] >= ahead {
		t.Errorf("the message arrived after the %d data frames queued before it: not in a queue of its own", ahead)
	}
}

// runThriftCLI runs BMv2's CLI against a switch's Thrift port inside ns
// with commands on stdin, failing on any error it prints.
func runThriftCLI(ctx context.Context, ns netns.NsHandle, bin string, port int, commands string) error {
	cmd := exec.CommandContext(ctx, bin, "--thrift-port", fmt.Sprint(port))
	cmd.Stdin = strings.NewReader(commands)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := namespace.Do(ns, cmd.Start); err != nil {
		return err
	}
	if err := cmd.Wait(); err != nil {
		return fmt.Errorf("%s: %w\n%s", bin, err, out.String())
	}
	for line := range strings.Lines(out.String()) {
		line = strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(line), "RuntimeCmd:"))
		if strings.HasPrefix(line, "Error") || strings.HasPrefix(line, "Invalid") || strings.HasPrefix(line, "***") {
			return fmt.Errorf("%s: %s", bin, line)
		}
	}
	return nil
}

// netipRoute is an ipv4_route entry sending ip (a /32) out of port.
func netipRoute(info *P4Info, ip string, port uint64) *p4v1.TableEntry {
	a := netip.MustParseAddr(ip).As4()
	return &p4v1.TableEntry{TableId: info.IPv4Route, Match: []*p4v1.FieldMatch{{
		FieldId:        info.FieldDstAddr,
		FieldMatchType: &p4v1.FieldMatch_Lpm{Lpm: &p4v1.FieldMatch_LPM{Value: a[:], PrefixLen: 32}},
	}}, Action: tableAction(action(info.SetPort, param(info.ParamPort, port)))}
}
