// Package lab builds and removes testbed labs: one network namespace per
// switch and host of a fabric, a veth pair per link, host addresses, and a
// BMv2 simple_switch_grpc process per switch with its egress queues set.
//
// A Plan lays a fabric out (namespace names, BMv2 port numbers, host
// addresses); every other part of the testbed derives its names from it.
// Up records each resource in the lab's state file before creating it, so
// that Down can remove everything, even after a crash; Load, Status and
// Down work from the state file in another process than the one that ran
// Up. Beside the state file, the spec file (Spec, WriteSpec, LoadSpec)
// records the fabric the lab was built from, so that a later process
// rebuilds the same Plan.
//
// Programming the switches through P4Runtime is package p4rt's job; the
// live control loop and workloads are package controller's.
package lab
