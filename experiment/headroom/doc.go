// Package headroom measures how much any adaptive policy could win on a
// scenario's traffic (graphcc headroom): beside the policies given, the
// yardsticks the learned policies are held to, each on report seeds that
// no selection used, with intervals across them.
//
//   - the fair-share ideal (policy ideal), what any policy could win;
//   - the best fixed configuration, experiment/tune's search on the
//     selection seeds (switch ECN jointly with the hosts' DCQCN constants
//     when the hardware's are a NIC's, switch-only otherwise), the floor;
//   - the best schedule of fixed configurations over segments of the
//     traffic (the scenario's phases, or fixed-length segments), found by
//     coordinate descent from the best constant on the selection seeds
//     (schedule.go says why that search), what adaptation could win; a
//     sched: spec that graphcc eval --policies runs unchanged. Its gain
//     is reported in-sample and held out, since per-segment oracles chosen
//     on some seeds need not transfer to others.
//
// # Measuring
//
//   - Measure runs a measurement (Config) and returns its Result.
//   - Config: the scenario, the policies, the search (grid, rounds,
//     switch-only, or a finished search to reuse: Tuned), the segments,
//     the descent's candidates (how many, and configurations besides
//     the search's: Also) and passes, the seeds, the simulated hardware,
//     the journal to resume from. Config.Joint tells whether
//     the search is joint, Config.Key what names the measurement.
//   - DefaultSegment, DefaultCandidates, DefaultPasses, DefaultRefine,
//     DefaultTop, DefaultSelectSeeds, DefaultReportSeeds and CoarseGrid
//     are its defaults.
//   - Segments returns the segments of a trace.
//   - Settings are the settings a person writes (graphcc headroom's
//     --grid, --tune, --also and --segment; DefaultSettings);
//     Settings.Apply checks them and sets them in a Config.
//
// # Results
//
//   - Result is what a measurement found: the best constant, the
//     schedule, its steps and its in-sample and held-out gains (tune.Ratio, with intervals),
//     and a Row per yardstick and policy on the report seeds.
//   - Result.WriteJSON and Result.WriteMarkdown write it.
//
// # Resuming
//
//   - Journal holds what a measurement simulated so far: the search's
//     result and every schedule's score (with its values leaving out
//     each seed, from which the report's in-sample gain takes its
//     interval without running anything again). ReadJournal reads one; Resume
//     makes a Config resume from and save to a journal file.
//   - LoadTuned reads a tune result for Config.Tuned: a search sharded
//     with graphcc tune --shard and put together by graphcc merge.
//
// # Sharding
//
// A measurement shards in two stages (shard.go says why):
//
//   - SearchPart runs one shard of the search's grid round (SearchRuns
//     counts its simulations); tune.Merge of every shard's part gives
//     the tune result Config.Tuned takes.
//   - RowsPart runs one shard of the rows that do not depend on the
//     schedule, with the search done (RowsRuns counts them), as a part of
//     kind experiment.PartHeadroom; Merge puts every shard's together and
//     measures the rest, to the result Measure returns. ConfigOf reads
//     the measurement a part is of.
//
// The files by job: headroom.go the measurement, schedule.go the segments
// and the descent, result.go the report, journal.go the journal, shard.go
// the sharded stages, settings.go the settings as written.
package headroom
