// Package experiment runs graphcc's evaluations: every policy on every
// scenario at every seed, on the same traces, in parallel, and the report
// (Markdown and JSON) of slowdowns, throughput and queues with ratios to a
// reference policy and their 95 % intervals. A Go program gets the same
// report as graphcc eval does: Evaluate(ctx, Config{...}).
//
// It also keeps the evaluation's seeds (EvalSeeds, 1001 to 1010) apart:
// no training or model selection may use them (CheckTrainingSeeds).
//
// Beside the testbed (package controller, which does not import the
// simulator), it runs the simulator that stands for the testbed
// (TestbedParams, SimulateLikeTestbed) and prints the two side by side
// (WriteTestbedComparison).
package experiment
