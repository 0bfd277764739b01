package p4rt

import (
	"context"
	"testing"

	p4v1 "github.com/p4lang/p4runtime/go/p4/v1"

	"graphcc/control"
	"graphcc/topo"
)

// alternate returns two settings slices for the fabric that differ on every
// port, so each step writes every port of a switch.
func alternate(f *topo.Fabric) [2][]control.ECN {
	a := control.StaticSettings(f)
	b := make([]control.ECN, len(a))
	for i := range b {
		b[i] = control.ECN{KMin: 2000, KMax: 64000, PMax: 0.5}
	}
	return [2][]control.ECN{a, b}
}

// BenchmarkLeafStep is the P4Runtime part of one control step for one leaf
// of the default Clos against the in-process fake server over loopback TCP:
// one ReadRequest for the telemetry of its 8 ports (216 counter cells)
// decoded into PortSamples, and one WriteRequest modifying the ECN entries
// of its 8 ports. The server runs in the same process; BMv2 is another
// matter.
func BenchmarkLeafStep(b *testing.B) {
	ctx := context.Background()
	info := testP4Info(b)
	p := mustPlan(b, topo.DefaultClos())
	leaf := &p.Switches[0]
	f := newFakeP4RT(leaf.DeviceID)
	addr, _ := serveFake(b, f)
	s := dialFake(b, ctx, leaf.Name, addr, leaf.DeviceID, 1)
	settings := alternate(p.Fabric)
	entries, err := InitialEntries(info, p, 0, settings[0])
	if err != nil {
		b.Fatal(err)
	}
	if err := s.SetPipeline(ctx, info, testDeviceConfig); err != nil {
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
		if err != nil || len(ch) != len(leaf.Ports) {
			b.Fatalf("%d changes, %v", len(ch), err)
		}
		if err := s.Write(ctx, Updates(p4v1.Update_MODIFY, ch)...); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkFabricStep is the P4Runtime part of one control step of the
// default Clos (6 switches, 40 switch ports, 24 host ports) against six
// fake servers over loopback TCP: Fabric.ReadTelemetry and a SetECN
// that changes every port.
func BenchmarkFabricStep(b *testing.B) {
	ctx := context.Background()
	info := testP4Info(b)
	p := mustPlan(b, topo.DefaultClos())
	clients := make([]*Switch, len(p.Switches))
	for i, sp := range p.Switches {
		addr, _ := serveFake(b, newFakeP4RT(sp.DeviceID))
		clients[i] = dialFake(b, ctx, sp.Name, addr, sp.DeviceID, 1)
	}
	r, err := NewFabric(p, info, clients)
	if err != nil {
		b.Fatal(err)
	}
	settings := alternate(p.Fabric)
	if err := r.Program(ctx, testDeviceConfig, settings[0]); err != nil {
		b.Fatal(err)
	}
	samples := make([]control.PortSample, len(p.Fabric.Ports))
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		if err := r.ReadTelemetry(ctx, samples); err != nil {
			b.Fatal(err)
		}
		if n, err := r.SetECN(ctx, settings[(i+1)%2]); err != nil || n != len(p.Fabric.Agents()) {
			b.Fatalf("%d writes, %v", n, err)
		}
	}
}
