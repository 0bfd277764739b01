// Package replay is graphcc's packet-level discrete-event simulator of RDMA
// datacenter fabrics: it replays a trace of flows (package trace) on a
// fabric (package topo) with HPCC's ns-3 models of DCQCN hosts, PFC and
// shared-buffer switches with RED/ECN marking, and returns each flow's
// completion time and a summary (package metrics). Every control interval
// it hands the ports' telemetry to a control.Loop, the control step the
// testbed runs too. Time is integer picoseconds; a run is deterministic for
// its inputs and seed. docs/simulator.md states the model and its fidelity
// to HPCC; the fair-share ideal is in the subpackage ideal.
//
// Run and RunContext simulate a Config into a Result (Result.WriteText
// prints it as graphcc sim does); Params are the hardware's
// constants (DefaultParams: HPCC's), HardwareSettings the part of them a
// person sets (graphcc's hardware flags), and InBand is what it runs of
// per-switch agents whose messages are packets on the links.
package replay
