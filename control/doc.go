// Package control is the one control loop that the simulator and the testbed
// share: every control interval a fabric reports per-port telemetry, and a
// Loop (the step both fabrics call) traces it, lets a Policy choose the ECN
// marking settings of every switch egress port, checks them, applies them
// through the fabric's Actuator and counts them.
//
// The package holds what both fabrics must agree on: the ECN setting and its
// marking rule, the telemetry of a port and the one queue-feature definition
// (PortSample.QueueFeature), the Policy interface, the telemetry CSV
// (TraceHeader) and the count of settings used.
//
// Ports are indexed by topo.PortID in every slice of this package. Ports whose
// source is a host carry telemetry (hosts' NIC links are neighbours in the agent
// graph) but their ECN settings are ignored: hosts do not mark.
package control
