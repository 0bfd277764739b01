// Package experiment is graphcc's evaluation harness: it runs every
// policy on every scenario at every seed, on the same traces, in
// parallel, and returns the Report of slowdowns, throughput and queues
// with ratios to a reference policy and their 95 % intervals. Package
// experiment/report renders a Report (Markdown, JSON, figures); package
// experiment/tune searches fixed configurations through Evaluate.
//
// # Evaluation
//
//   - Evaluate runs an evaluation (Config: scenarios, policies, seeds,
//     the simulated hardware, the reference, yardsticks, rewards) and
//     returns its Report.
//   - Report, ScenarioResult, PolicyResult, BinRatios and YardstickRatios
//     are its result: per scenario and policy the merged Summary, the
//     slowdown per flow-size bin and per phase, the ratios to the
//     reference with intervals and their geometric means over the
//     scenarios. Report.RefIndex, NormalizedMeanSlowdown,
//     GeoMeanSlowdown, GeoMeanRatio, WorstVsYardstick and AboveYardstick
//     read it.
//   - Beside the reference, every policy is measured against yardsticks
//     (Config.Yardsticks: static, tuned:DIR, tuned:FILE, ideal): per
//     scenario its ratios to each, their geometric means, the worst
//     scenario and those where it is above one, which issue 23's targets
//     check. DefaultYardstick picks the shipped tune tuned on the
//     evaluation's hardware (tuned:joint, else tuned:switch, else none,
//     with a note saying why), which PolicySpecs' AutoYardsticks, eval's
//     default, adds.
//
// # Seeds and rewards
//
//   - EvalSeeds are the evaluation's seeds, 1001 to 1010: no training or
//     model selection may use them (CheckTrainingSeeds).
//   - ParseSeeds and FormatSeeds read and write lists and ranges of
//     seeds ("1001-1010,2001"); MaxSeedRange bounds a range.
//   - ParseRewards reads the rewards an evaluation scores every run under
//     (NamedReward); DefaultRewards names the default ones.
//   - RunSettings are the seeds, workers and rewards as a person writes
//     them (eval's flags); RunSettings.Apply checks them (CheckSeeds)
//     and sets them in a Config.
//
// # Sharded evaluations
//
// An evaluation's units (a policy on a scenario at a seed) split into
// shards that run apart (graphcc eval --shard) and merge into the report
// Evaluate of the whole writes:
//
//   - Shard is one shard of N (ParseShard reads I/N or ENV/N, ShardEnv
//     the variables ENV may name); MaxShards bounds N.
//   - EvaluatePart runs one shard and returns its Part; WritePart writes
//     its file (PartFormat, docs/formats.md), OpenPart reads its header
//     (OpenParts, those of several files) and PartReader.Next its units
//     one at a time.
//   - Merge puts every shard's part together into the Report. CheckParts
//     and Fingerprint are what a sharded search (experiment/tune, parts
//     of kind PartTuneGrid) shares of it; MergeKind is Merge of a
//     headroom measurement's parts (experiment/headroom, PartHeadroom),
//     whose units are an evaluation's.
//
// # The testbed's simulator
//
// Beside the testbed (package controller, which does not import the
// simulator), it runs the simulator that stands for the testbed
// (TestbedParams, TestbedPolicyEnv, SimulateLikeTestbed) and prints the
// two side by side (WriteTestbedComparison). WriteCurvePNG draws a
// training run's curve.
//
// The files by job: eval.go the harness (Evaluate), report.go the
// report's types, specs.go the policies as written (PolicySpecs),
// settings.go the rest of the settings as written (RunSettings),
// yarddefault.go the default yardstick, yardstick.go and phases.go the ratios to the yardsticks
// and by phase, seeds.go and rewards.go the seed and reward grammars,
// shard.go, part.go, partfile.go and merge.go the sharded evaluations,
// testbed.go the testbed comparison, curve.go the training curve.
package experiment
