// Package metrics turns flow completion times into the figures graphcc
// reports: FCT slowdown statistics overall and per flow-size bin (as HPCC's
// fct_analysis.py takes them), the run Summary with its fixed JSON keys,
// ratio confidence intervals from the variation between seeds (a
// delete-one-seed jackknife on the log scale), and the flow-by-flow
// comparison of two runs (graphcc compare).
package metrics
