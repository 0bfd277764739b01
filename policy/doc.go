// Package policy builds the ECN control policies a run can use: a Factory
// makes a fresh control.Policy and its starting settings for each run.
// static, fixed thresholds scaled by port rate, settings by port role
// (edge) and a reactive rule are here, and so are the factories of the
// learned policies (GraphCC and ACC, whose networks live in package gnn).
//
// A policy spec names a policy the way sim, eval, train and the testbed
// all take it: static, static:KMIN_KB,KMAX_KB,PMAX, edge:…, react:…,
// sched:… (fixed settings on a time schedule, an oracle for phased
// traffic), tuned:FILE (the best fixed setting of a graphcc tune result),
// tuned:DIR (on each scenario the best fixed setting of its own tune
// result, DIR/<scenario>.json: the per-scenario tuned yardstick),
// tuned:joint and tuned:switch (the tune results graphcc ships, package
// models: ShippedTunes lists them with the hardware each was tuned on,
// which HardwareDiff compares with another's), graphcc[:MODEL], acc[:MODEL], floor:MARGIN[/HOST_MARGIN[/LINK_HOLD]]:BASE[@graphcc[:MODEL]] (a
// GraphCC model held to a base policy unless its Q-gap over the base's
// action exceeds MARGIN, the host agents' HOST_MARGIN, and held on the
// base while a link is down and LINK_HOLD after: gnn.Floor, gnn.FloorGates),
// or ideal, the fabric's fair share without
// queues (replay/ideal), which only the simulator runs. Parse turns a spec
// into a Named policy; Specs lists the forms for help texts (SpecsHelp).
// NewTeacher makes of a spec the teacher an imitating trainer copies
// (learn.Config.Teacher), on each episode's scenario.
// RunSpec is one simulator run's control as a person writes it (sim's
// policy, agents and interval flags); RunSpec.Resolve builds its
// RunControl: the policy run as its agents say (WithAgents: a graphcc
// policy, or a floor over a fixed base, FixedBase, as per-switch agents), its
// starting settings, or ideal's run in place of the simulator.
package policy
