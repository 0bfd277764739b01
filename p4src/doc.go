// Package p4src is the testbed's P4_16 program for BMv2 simple_switch_grpc
// (v1model): IPv4 forwarding with ECMP, per-egress-port ECN marking with the
// simulator's RED rule, and per-port telemetry counters. It carries the
// source and the P4Info names of everything the controller programs or
// reads, so Go code never spells a name twice.
//
// `make p4` compiles graphcc.p4 with p4c-bm2-ss into graphcc.json (the BMv2
// configuration) and graphcc.p4info.txtpb (the P4Info, text format). Both
// are committed and embedded, so the testbed needs BMv2 but not p4c; a test
// recompiles when p4c-bm2-ss is on PATH and checks they are current.
package p4src
