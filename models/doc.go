// Package models holds the tune results graphcc ships, embedded in the
// binary so that a policy spec can name them from any working directory:
//
//   - TunedJointGlobal is tuned-joint-global.json, one configuration of the
//     switches' ECN and the hosts' DCQCN for the whole suite (graphcc tune
//     --scenario all --dcqcn; make yardsticks-joint), which policy names
//     tuned:joint;
//   - TunedSwitchGlobal is tuned-global.json, one switch ECN setting for
//     the whole suite (graphcc tune --scenario all; make yardsticks), which
//     policy names tuned:switch.
//
// The files are this directory's own, so the embedded results are the
// committed ones byte for byte. The directory's other files (the
// per-scenario tunes, the kept models) are read from disk by path; the
// shipped GraphCC model is gnn's (gnn.EmbeddedModel).
package models
