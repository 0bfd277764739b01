// Package experiment runs graphcc's evaluations: every policy on every
// scenario at every seed, on the same traces, in parallel, and the report
// (Markdown and JSON) of slowdowns, throughput and queues with ratios to a
// reference policy and their 95 % intervals, and its figures (one PNG per
// scenario, a paper column wide). Beside the reference, an evaluation may
// measure every policy against yardsticks (Config.Yardsticks: static, the
// per-scenario tuned constant tuned:DIR, the global tuned constant
// tuned:FILE, ideal): per scenario the ratios to each with intervals, their
// geometric means over the scenarios, the worst scenario and those where a
// policy is above a yardstick, which issue 23's targets check. A Go program gets the same report and
// figures as graphcc eval does: Evaluate(ctx, Config{...}), then
// Report.WriteMarkdown, WriteJSON and WriteFigures, or Report.WriteDir,
// which writes the report and figures into a directory and removes the
// figures of an earlier report there (ManifestFile).
//
// # Evaluation
//
// Tune searches the fixed switch ECN settings of one scenario for the one
// of lowest mean FCT slowdown (graphcc tune): a grid, refinement around
// the leaders, selection on validation seeds and a confirmation on
// others against static and the paper grid's best, every round run
// through Evaluate; TuneResult.WriteSummary prints the winner.
//
// Beside the testbed (package controller, which does not import the
// simulator), it runs the simulator that stands for the testbed
// (TestbedParams, TestbedPolicyEnv, SimulateLikeTestbed) and prints the
// two side by side (WriteTestbedComparison). WriteCurvePNG draws a
// training run's curve.
//
// The files by job: eval.go the harness (Evaluate), report.go the report's
// types, markdown.go and json.go its two forms, figure.go and figstyle.go
// the figures, yardstick.go the ratios to the yardsticks and their part
// of both forms, seeds.go and rewards.go the seed and reward grammars,
// testbed.go the testbed comparison, tune.go the search (Tune),
// tune_summary.go its summary, report_dir.go a report's directory.
package experiment
