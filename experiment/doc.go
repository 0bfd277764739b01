// Package experiment runs graphcc's evaluations: every policy on every
// scenario at every seed, on the same traces, in parallel, and the report
// (Markdown and JSON) of slowdowns, throughput and queues with ratios to a
// reference policy and their 95 % intervals. A Go program gets the same
// report as graphcc eval does: Evaluate(ctx, Config{...}).
//
// It also keeps the evaluation's seeds (EvalSeeds, 1001 to 1010) apart:
// no training or model selection may use them (CheckTrainingSeeds).
package experiment
