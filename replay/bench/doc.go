// Package bench times the packet-level simulator (package replay): one
// trace run several times, each run timed alone, with events and
// simulated seconds per wall second and the peak RSS, and the sweep of
// loads and fabric sizes that docs/performance.md records. It is what
// `graphcc bench` runs; the simulator itself keeps no timing code beyond
// its summary's.
//
//   - Time times runs of one replay.Config into a Case; Measure builds the
//     Case's trace from a fabric and traffic as written
//     (scenario.Settings) first.
//   - Report is a benchmark's cases with the machine (NewReport);
//     Report.RunSweep measures every Shape of Sweep.
//   - Case.WriteText, WriteSweepHeader and Case.WriteSweepRow print them;
//     ResetPeakRSS lets each run measure its own peak.
package bench
