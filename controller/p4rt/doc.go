// Package p4rt is the testbed's P4Runtime client for graphcc.p4 on BMv2.
//
// A Switch is the primary controller of one device: it pushes the
// pipeline, writes table entries in batched requests and reads counters.
// P4Info resolves every table, action and counter ID the controller uses
// once. The entry builders (ForwardingEntries, ECNEntries, …) are pure
// functions of a lab.Plan. SwitchTelemetry turns one switch's counters into
// control.PortSamples, and Fabric drives every switch of a lab at once:
// the telemetry reads and ECN writes of the control loop. Connect dials
// every switch of a live lab into a Fabric; BuiltinPipeline is the P4
// program built into the binary (package p4src), resolved.
package p4rt
