// Package control is the one control loop that the simulator and the testbed
// share: every control interval a fabric reports per-port telemetry, and a
// Loop (the step both fabrics call) traces it, lets a Policy choose the ECN
// marking settings of every switch egress port, checks them, applies them
// through the fabric's Actuator and counts them.
//
// The package holds what both fabrics must agree on: the ECN setting and its
// marking rule, the telemetry of a port and the one queue-feature definition
// (PortSample.QueueFeature), the Policy interface, the telemetry CSV
// (TraceHeader) and the count of settings used; the control interval
// (DefaultInterval, MinInterval, ParseInterval) and an ECN setting as a
// person writes it, in KB (ECNSettings).
//
// Per-switch agents, which decide over time rather than within a Step, run
// the same Loop through its halves Observe and Commit, and a per-switch
// agent's loop may hold only its own switch's ports (LoopConfig.Ports):
//
//   - InBand and Net: a policy run as one agent per switch whose messages
//     are packets on the fabric's links, and the fabric as its agents use
//     it (the simulator implements Net, gnn.InBand is an InBand);
//   - Fallback, DefaultMissLimit and CheckMissLimit: the one rule by which
//     an agent with messages late too many steps in a row puts its ports
//     on the static settings, in both fabrics (a limit of 0 never does).
//
// Ports are indexed by topo.PortID in every slice of this package. Ports whose
// source is a host carry telemetry (hosts' NIC links are neighbours in the agent
// graph) but their ECN settings are ignored: hosts do not mark.
package control
