// Package testbed is the library of the graphcc testbed commands: it
// builds a lab and programs its switches, runs a trace on a live lab
// under one or more ECN policies, and runs one switch's per-switch agent
// process. It ties together the packages below it: controller/lab (the
// lab), controller/p4rt (P4Runtime), controller (the live loop and
// workload runs), controller/agent (the per-switch agents), and, for the
// policies, policy and experiment (the policy specs, --compare-sim).
//
// Building a lab:
//   - Up (UpConfig) records the lab's spec, builds it with lab.Up, pushes
//     the pipeline (Pipeline: built in or from files) with the static
//     settings, sets the queues and the switch threads' real-time
//     priority, and takes the lab down again if any of that fails.
//   - UpConfig.Check and CheckRealtime check what they can before the
//     fabric is built; UpConfig.SetFabric builds it from a
//     scenario.Settings, and UpConfig.WriteUp says what came up.
//   - Down takes a lab down and removes the files the commands keep beside
//     its state; WriteStatus shows a lab and its last control step.
//
// Running on a lab:
//   - Open (Session) loads a live lab, its spec and its pipeline;
//     Session.Scenario is the lab's fabric as a scenario without traffic.
//   - Session.Run (RunConfig, RunResult) plays a trace of flows under each
//     policy spec in turn (controller.RunPolicies): each policy's trace,
//     last step, FCT and summary files (Outputs, PolicyPath), its summary
//     table, the simulator's run beside it (--compare-sim) and the
//     comparison of them all. RunConfig.SetPolicies sets its policy specs
//     from a flag's values, RunConfig.CheckOutputs checks its files
//     first. Session.Traffic gives the scenario and its flows (from a
//     flow file, or generated from a scenario.Settings, with FitFanIn
//     fitting an incast to the lab).
//   - AgentsConfig is how a GraphCC policy's step runs: central, or one
//     agent process per switch (the processes run graphcc testbed agent).
//
// One agent process: RunAgent (AgentConfig) is the body of graphcc
// testbed agent, one switch's agent reporting every step as a JSON line;
// AgentConfig.Args are the flags a run starts it with.
//
// Error messages name the testbed commands' flags that set the fields at
// fault (--p4info, --realtime, --incast-fanin, …), as the commands print
// them.
package testbed
