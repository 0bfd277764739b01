package p4rt

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	p4v1 "github.com/p4lang/p4runtime/go/p4/v1"
	"github.com/vishvananda/netns"
	"google.golang.org/grpc"

	"graphcc/control"
	"graphcc/controller/lab"
	"graphcc/namespace"
	"graphcc/p4src"
	"graphcc/topo"

	"graphcc/internal/privtest"
)

// These tests run the P4Runtime client against real BMv2
// (simple_switch_grpc without interfaces: no root needed), and skip
// naming the binary when it is not on PATH.

// requireBinaryP4RT returns the path of a program on PATH, or skips naming
// it (privtest).
func requireBinaryP4RT(tb testing.TB, name string) string {
	return privtest.Program(tb, name, "p4lang/behavioral-model")
}

func p4rtFreePort(tb testing.TB) int {
	tb.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// startBMv2P4RT starts simple_switch_grpc with no pipeline for device, with
// ifaces (BMv2 port number i+1 on ifaces[i]) inside namespace ns (0: this
// one), and returns a client that is its primary controller and the
// switch's Thrift port. The process is killed when the test ends.
func startBMv2P4RT(tb testing.TB, ctx context.Context, name string, device uint64, ns netns.NsHandle, ifaces ...string) (*Switch, int) {
	tb.Helper()
	bin := requireBinaryP4RT(tb, "simple_switch_grpc")
	dir := tb.TempDir()
	grpcAddr := fmt.Sprintf("127.0.0.1:%d", p4rtFreePort(tb))
	thrift := p4rtFreePort(tb)
	args := []string{"--no-p4", "--device-id", fmt.Sprint(device),
		"--thrift-port", fmt.Sprint(thrift),
		"--notifications-addr", "ipc://" + filepath.Join(dir, "notifications.ipc")}
	for i, ifc := range ifaces {
		args = append(args, "-i", fmt.Sprintf("%d@%s", i+1, ifc))
	}
	// the lab's target options: its gRPC address, queues per port and CPU
	// port
	args = append(args, "--", "--grpc-server-addr", grpcAddr, "--priority-queues", fmt.Sprint(lab.PriorityQueues),
		"--cpu-port", fmt.Sprint(p4src.CPUPort))
	cmd := exec.Command(bin, args...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	start := cmd.Start
	var opts []grpc.DialOption
	if ns != 0 {
		start = func() error { return namespace.Do(ns, cmd.Start) }
		opts = append(opts, grpc.WithContextDialer(func(ctx context.Context, addr string) (net.Conn, error) {
			var c net.Conn
			err := namespace.Do(ns, func() (err error) {
				var d net.Dialer
				c, err = d.DialContext(ctx, "tcp", addr)
				return err
			})
			return c, err
		}))
	}
	if err := start(); err != nil {
		tb.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	tb.Cleanup(func() {
		cmd.Process.Kill()
		<-exited
	})
	// Dial until the server listens (it starts in well under a second).
	ctx, cancelStart := context.WithTimeout(ctx, 30*time.Second)
	defer cancelStart()
	for {
		actx, cancel := context.WithTimeout(ctx, time.Second)
		s, err := Dial(actx, name, grpcAddr, device, 1, opts...)
		cancel()
		if err == nil {
			tb.Cleanup(func() { s.Close() })
			return s, thrift
		}
		select {
		case err := <-exited:
			tb.Fatalf("simple_switch_grpc exited: %v\n%s", err, out.String())
		case <-ctx.Done():
			tb.Fatalf("simple_switch_grpc at %s: %v\n%s", grpcAddr, err, out.String())
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// Push graphcc.p4 to BMv2, program leaf0 of the default Clos, read
// everything back, modify the ECN settings and read them back, read the
// telemetry counters (zero: no traffic).
func TestBMv2Program(t *testing.T) {
	ctx := testCtx(t)
	info := testP4Info(t)
	p := mustPlan(t, topo.DefaultClos())
	leaf := &p.Switches[0]
	s, _ := startBMv2P4RT(t, ctx, leaf.Name, leaf.DeviceID, 0)
	if v, err := s.Capabilities(ctx); err != nil || v == "" {
		t.Errorf("capabilities %q, %v", v, err)
	}
	if err := s.SetPipeline(ctx, info, p4src.BMv2JSON); err != nil {
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
	readBack := func(want []*p4v1.TableEntry) {
		t.Helper()
		byTable := map[uint32]int{}
		for _, e := range want {
			byTable[e.GetTableId()]++
		}
		for table, n := range byTable {
			got, err := s.ReadTable(ctx, table)
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != n {
				t.Errorf("table %s: %d entries read, %d written", info.Name(table), len(got), n)
			}
			for _, g := range got {
				found := false
				for _, w := range want {
					found = found || sameEntry(g, w)
				}
				if !found {
					t.Errorf("table %s: read %v, not written", info.Name(table), g)
				}
			}
		}
	}
	readBack(entries)

	// Inserting again is refused per update, naming the switch.
	err = s.Write(ctx, Updates(p4v1.Update_INSERT, entries[:1])...)
	if err == nil || !strings.Contains(err.Error(), "switch leaf0") || !strings.Contains(err.Error(), "update 0 (INSERT") {
		t.Errorf("duplicate insert: %v", err)
	}

	cur := append([]control.ECN(nil), ecn...)
	for i, pp := range leaf.Ports {
		cur[pp.Port] = control.ECN{KMin: int64(2000 * (i + 1)), KMax: 256000, PMax: 0.25}
	}
	changes, err := ECNChanges(info, p, 0, ecn, cur)
	if err != nil || len(changes) != len(leaf.Ports) {
		t.Fatalf("%d changes, %v", len(changes), err)
	}
	if err := s.Write(ctx, Updates(p4v1.Update_MODIFY, changes)...); err != nil {
		t.Fatal(err)
	}
	readBack(changes)

	tel, err := NewSwitchTelemetry(info, p, 0, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range [][]*p4v1.CounterEntry{tel.Query(), tel.WildcardQuery()} {
		vals, err := s.ReadCounters(ctx, nil, q)
		if err != nil {
			t.Fatal(err)
		}
		samples := make([]control.PortSample, len(p.Fabric.Ports))
		if err := tel.Decode(samples, vals); err != nil {
			t.Fatal(err)
		}
		for _, pp := range leaf.Ports {
			if s := samples[pp.Port]; s.TxBytes != 0 || s.EnqPackets() != 0 || s.QueueBytes != -1 {
				t.Errorf("port %d without traffic: %+v", pp.Num, s)
			}
		}
	}
}

// sameEntry compares a read-back entry with a written one: BMv2 may add
// fields the writer left unset (none of them ones graphcc writes).
func sameEntry(got, want *p4v1.TableEntry) bool {
	if got.GetTableId() != want.GetTableId() || got.GetPriority() != want.GetPriority() || len(got.GetMatch()) != len(want.GetMatch()) {
		return false
	}
	for i := range want.GetMatch() {
		if got.GetMatch()[i].String() != want.GetMatch()[i].String() {
			return false
		}
	}
	return got.GetAction().GetAction().String() == want.GetAction().GetAction().String()
}

// BenchmarkBMv2LeafStep: one telemetry read (one ReadRequest, the 216 cells
// of leaf0's 8 ports) decoded, and one WriteRequest modifying the ECN
// entries of its 8 ports, against simple_switch_grpc over loopback TCP.
func BenchmarkBMv2LeafStep(b *testing.B) {
	benchmarkBMv2LeafStep(b, false)
}

// BenchmarkBMv2LeafStepWildcard reads whole counter arrays instead (4
// entities, 1728 cells).
func BenchmarkBMv2LeafStepWildcard(b *testing.B) {
	benchmarkBMv2LeafStep(b, true)
}

func benchmarkBMv2LeafStep(b *testing.B, wildcard bool) {
	ctx := context.Background()
	info := testP4Info(b)
	p := mustPlan(b, topo.DefaultClos())
	leaf := &p.Switches[0]
	s, _ := startBMv2P4RT(b, ctx, leaf.Name, leaf.DeviceID, 0)
	settings := alternate(p.Fabric)
	entries, err := InitialEntries(info, p, 0, settings[0])
	if err != nil {
		b.Fatal(err)
	}
	if err := s.SetPipeline(ctx, info, p4src.BMv2JSON); err != nil {
		b.Fatal(err)
	}
	if err := s.Write(ctx, Updates(p4v1.Update_INSERT, entries)...); err != nil {
		b.Fatal(err)
	}
	tel, err := NewSwitchTelemetry(info, p, 0, nil)
	if err != nil {
		b.Fatal(err)
	}
	query := tel.Query()
	if wildcard {
		query = tel.WildcardQuery()
	}
	samples := make([]control.PortSample, len(p.Fabric.Ports))
	var vals []CounterValue
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		vals, err = s.ReadCounters(ctx, vals[:0], query)
		if err != nil {
			b.Fatal(err)
		}
		if err := tel.Decode(samples, vals); err != nil {
			b.Fatal(err)
		}
		ch, err := ECNChanges(info, p, 0, settings[i%2], settings[(i+1)%2])
		if err != nil {
			b.Fatal(err)
		}
		if err := s.Write(ctx, Updates(p4v1.Update_MODIFY, ch)...); err != nil {
			b.Fatal(err)
		}
	}
}

// startBMv2Fabric starts six simple_switch_grpc processes for the default
// Clos and programs them with the first of alternate's settings.
func startBMv2Fabric(b *testing.B, ctx context.Context) (*Fabric, *lab.Plan, [2][]control.ECN) {
	info := testP4Info(b)
	p := mustPlan(b, topo.DefaultClos())
	clients := make([]*Switch, len(p.Switches))
	for i, sp := range p.Switches {
		clients[i], _ = startBMv2P4RT(b, ctx, sp.Name, sp.DeviceID, 0)
	}
	r, err := NewFabric(p, info, clients)
	if err != nil {
		b.Fatal(err)
	}
	// the lab's queue depths, so that reads skip the cells no packet can
	// reach, as testbed run reads
	depth := make([]int64, len(p.Fabric.Ports))
	for _, sp := range p.Switches {
		for _, pp := range sp.Ports {
			depth[pp.Port] = lab.QueueDepth(p.Fabric.Ports[pp.Port].Rate, 0)
		}
	}
	if err := r.SetQueueDepths(depth); err != nil {
		b.Fatal(err)
	}
	settings := alternate(p.Fabric)
	if err := r.Program(ctx, p4src.BMv2JSON, settings[0]); err != nil {
		b.Fatal(err)
	}
	return r, p, settings
}

// BenchmarkBMv2FabricStep: Fabric.ReadTelemetry and a SetECN that
// changes all 40 switch ports of the default Clos, against six
// simple_switch_grpc processes (all on this machine's cores).
func BenchmarkBMv2FabricStep(b *testing.B) {
	ctx := context.Background()
	r, p, settings := startBMv2Fabric(b, ctx)
	samples := make([]control.PortSample, len(p.Fabric.Ports))
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		if err := r.ReadTelemetry(ctx, samples); err != nil {
			b.Fatal(err)
		}
		if _, err := r.SetECN(ctx, settings[(i+1)%2]); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkBMv2FabricRead: Fabric.ReadTelemetry alone, the step of
// a policy that changes nothing, against six simple_switch_grpc processes.
func BenchmarkBMv2FabricRead(b *testing.B) {
	ctx := context.Background()
	r, p, _ := startBMv2Fabric(b, ctx)
	samples := make([]control.PortSample, len(p.Fabric.Ports))
	b.ResetTimer()
	for b.Loop() {
		if err := r.ReadTelemetry(ctx, samples); err != nil {
			b.Fatal(err)
		}
	}
}
