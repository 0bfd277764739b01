// Package testfabric holds the fabrics, traces and telemetry samples that
// tests of several packages build, failing the test on error: the GraphCC
// Clos (Clos), a small Clos and a few flows on it (SmallClos, SmallFlows),
// the Clos with a failed link (FailedClos), a small evaluation scenario
// (TinyScenario), the benchmarks' large trace (LargeTrace), and one
// port's counters for an interval (Sample). It imports control, scenario
// and workload, so their own tests cannot use it.
package testfabric
