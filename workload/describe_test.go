package workload

import (
	"testing"

	"graphcc/topo"
	"graphcc/trace"
)

func TestDescribe(t *testing.T) {
	noIncast := DefaultGen()
	noIncast.Incast.Period, noIncast.Load, noIncast.Seed = 0, 0.8, 7
	for _, tc := range []struct {
		c    GenConfig
		want string
	}{
		{DefaultGen(), "fb_hadoop at 60% load for 25ms, 16:1 incasts of 64000 B every 1ms, seed 1"},
		{noIncast, "fb_hadoop at 80% load for 25ms, no incasts, seed 7"},
	} {
		if got := tc.c.Describe(); got != tc.want {
			t.Errorf("Describe() = %q, want %q", got, tc.want)
		}
	}
}

func TestDescribeTrace(t *testing.T) {
	f, err := topo.Clos(topo.ClosConfig{Leaves: 1, Spines: 1, HostsPerLeaf: 2, HostRate: 25 * topo.Gbps, FabricRate: 100 * topo.Gbps, LinkDelay: topo.Microsecond, Buffer: 1 << 20})
	if err != nil {
		t.Fatal(err)
	}
	h := f.Hosts()
	flows := []trace.Flow{
		{Src: h[0], Dst: h[1], Size: 1_000_000, DPort: 100},
		{Src: h[1], Dst: h[0], Size: 250_000, DPort: trace.DPortIncast},
	}
	c := GenConfig{Duration: topo.Millisecond}
	phased := GenConfig{Duration: topo.Millisecond, Phases: make([]Phase, 2)}
	for _, tc := range []struct {
		c    GenConfig
		want string
	}{
		// 10 Mbit over 50 Gbit of capacity per ms: 20 %
		{c, "2 flows (1 incast), 1250000 bytes, offered load 20.0% of 2 hosts' links over 1ms"},
		{phased, "2 flows (1 incast), 1250000 bytes, offered load 20.0% of 2 hosts' links over 1ms in 2 phases"},
	} {
		if got := DescribeTrace(f, flows, tc.c); got != tc.want {
			t.Errorf("DescribeTrace = %q, want %q", got, tc.want)
		}
	}
}
