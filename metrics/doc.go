// Package metrics turns flow completion times into the figures graphcc
// reports, and defines each figure once for both fabrics.
//
// Slowdowns: SlowdownStats, SlowdownBySize (DefaultBins, FigureBins) and
// MeanThroughputGbps summarize FCT records as HPCC's fct_analysis.py
// takes them (percentile index PercentileIndex, MeanP99); Normalize
// divides by a reference.
//
// The run summary: Summary (Summarize fills its FCT-derived part; the
// simulator and the testbed the rest), its tables (Summary.WriteTable,
// WriteTableOf) and, for per-switch agents, AgentStats. SummaryKeys is the
// one definition of every summary JSON key: what it means and which
// Fabric (Simulator, Testbed) measures it; a fabric leaves out the keys
// it does not measure (Fabric.Measures, OmitUnmeasured).
//
// Phases and intervals: SlowdownByPhase splits a phased trace's flows by
// the Phases they start in (PhaseStats); ratio confidence intervals
// (Ratio) come from the variation between seeds (Jackknife: a
// delete-one-seed jackknife on the log scale, LogInterval).
//
// Comparison: Compare matches two runs flow by flow (graphcc compare) into
// a Comparison (WriteTable, Report: CompareReport; Within, its verdict
// against a tolerance).
package metrics
