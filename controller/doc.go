// Package controller runs the live control loop and workloads on a
// testbed lab: every control interval it reads the telemetry of every port
// from the switches, lets a policy decide, and writes the changed ECN
// settings back (RunLoop: LoopConfig, LoopStats; the policies see the
// nominal interval), while hostgen's senders and receivers in the lab's
// hosts play a trace of flows (RunWorkload: WorkloadConfig,
// WorkloadResult). RunPolicies plays one trace under several policies in
// turn on one lab, each run from a fresh pipeline on queue pairs of its
// own. With per-switch agents (Agents, AgentStart, AgentStats) the loop
// shadows them on a TimedFabric. A StepRecorder keeps the last control
// step of a run in the lab's directory (LastStepFile) for a status display
// (ReadLastStep, LastStep.WriteText).
//
// A run's summary is a TestbedSummary (Summarize builds it from a
// RunRecord): the simulator's keys that the testbed measures, each with
// the meaning metrics.SummaryKeys gives it, the others left out of its
// JSON, and the keys of the loop and the agents; WriteTable renders it.
//
// Building the lab is package controller/lab's job; talking P4Runtime to
// its switches is package controller/p4rt's; the testbed commands' work
// on top of them (up with the pipeline pushed, a run of several policy
// specs with its output files, the per-switch agent process) is package
// controller/testbed's.
package controller
