package testfabric

import (
	"testing"

	"graphcc/scenario"
	"graphcc/topo"
	"graphcc/trace"
	"graphcc/workload"
)

// Clos returns the GraphCC fabric (topo.DefaultClos): 24 hosts (ids
// 0..23), 4 leaves, 2 spines.
func Clos(tb testing.TB) *topo.Fabric {
	tb.Helper()
	f, err := topo.Clos(topo.DefaultClos())
	if err != nil {
		tb.Fatal(err)
	}
	return f
}

// Node returns the node of f named name.
func Node(tb testing.TB, f *topo.Fabric, name string) topo.NodeID {
	tb.Helper()
	n, ok := f.NodeByName(name)
	if !ok {
		tb.Fatalf("no node %s", name)
	}
	return n
}

// TinyScenario is a small evaluation scenario: a Clos of 2 leaves of 2
// hosts and 1 spine, 1 ms of the default traffic with a 3:1 incast every
// 250 µs.
func TinyScenario() scenario.Scenario {
	s := scenario.Default()
	s.Name = "tiny"
	s.Description = "test scenario"
	s.Clos.Leaves, s.Clos.Spines, s.Clos.HostsPerLeaf = 2, 1, 2
	s.Gen.Duration = topo.Millisecond
	s.Gen.Incast = workload.IncastConfig{Period: 250 * topo.Microsecond, FanIn: 3, Size: 64000}
	return s
}

// LargeTrace is the benchmarks' large run: 5 ms of FB_Hadoop at 60 % load,
// no incasts, on a Clos of 16 leaves of 24 hosts and 8 spines.
func LargeTrace(b *testing.B) (*topo.Fabric, []trace.Flow) {
	c := topo.DefaultClos()
	c.Leaves, c.HostsPerLeaf, c.Spines = 16, 24, 8
	f, err := topo.Clos(c)
	if err != nil {
		b.Fatal(err)
	}
	g := workload.DefaultGen()
	g.Duration = 5 * topo.Millisecond
	g.Incast.Period = 0
	flows, err := workload.Generate(f, g)
	if err != nil {
		b.Fatal(err)
	}
	return f, flows
}
