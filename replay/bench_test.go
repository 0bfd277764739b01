package replay

import (
	"testing"

	"graphcc/internal/testfabric"
	"graphcc/topo"
	"graphcc/workload"
)

// benchScenario is the benchmark scenario of docs/performance.md: the GraphCC Clos,
// FB_Hadoop at 60 % load without incasts, 25 ms of arrivals, seed 1.
func benchScenario(b testing.TB, load float64) Config {
	b.Helper()
	f, err := topo.Clos(topo.DefaultClos())
	if err != nil {
		b.Fatal(err)
	}
	g := workload.DefaultGen()
	g.Load = load
	g.Incast.Period = 0
	flows, err := workload.Generate(f, g)
	if err != nil {
		b.Fatal(err)
	}
	return Config{Fabric: f, Flows: flows, Seed: 1}
}

// BenchmarkRun simulates the benchmark scenario to the end; events/s and
// the simulated-to-wall ratio are reported as metrics.
func BenchmarkRun(b *testing.B) {
	cfg := benchScenario(b, 0.6)
	b.ReportAllocs()
	b.ResetTimer()
	var r *Result
	for i := 0; i < b.N; i++ {
		var err error
		if r, err = Run(cfg); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	sec := b.Elapsed().Seconds() / float64(b.N)
	b.ReportMetric(float64(r.Counters.Events)/sec, "events/s")
	b.ReportMetric(r.Summary.SimSeconds/sec, "sim/wall")
}

// BenchmarkRunLarge simulates 5 ms of FB_Hadoop at 60 % on a 384-host Clos
// (16 leaves of 24 hosts, 8 spines) to show how cost grows with the fabric.
func BenchmarkRunLarge(b *testing.B) {
	f, flows := testfabric.LargeTrace(b)
	cfg := Config{Fabric: f, Flows: flows, Seed: 1}
	var err error
	b.ReportAllocs()
	b.ResetTimer()
	var r *Result
	for i := 0; i < b.N; i++ {
		if r, err = Run(cfg); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	sec := b.Elapsed().Seconds() / float64(b.N)
	b.ReportMetric(float64(r.Counters.Events)/sec, "events/s")
}
