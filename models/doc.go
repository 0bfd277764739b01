// Package models holds the tune results and the GraphCC model graphcc
// ships, embedded in the binary so that a policy spec can name them from
// any working directory:
//
//   - TunedJointGlobal is tuned-joint-global.json, one configuration of the
//     switches' ECN and the hosts' DCQCN for the whole suite (graphcc tune
//     --scenario all --dcqcn; make yardsticks-joint), which policy names
//     tuned:joint;
//   - TunedSwitchGlobal is tuned-global.json, one switch ECN setting for
//     the whole suite (graphcc tune --scenario all; make yardsticks), which
//     policy names tuned:switch;
//   - GraphCC is graphcc-hosts.model (GraphCCFile), the GraphCC model
//     with a host head (make models/graphcc-hosts.model), which policy
//     names graphcc:bare and, held to tuned:joint, the default graphcc.
//
// The files are this directory's own, so the embedded ones are the
// committed ones byte for byte. The directory's other files (the
// per-scenario tunes, the other models) are read from disk by path; the
// switch-only GraphCC model is gnn's (gnn.EmbeddedModel), which policy
// names graphcc:bare-switch and, held to tuned:switch, graphcc:switch.
package models
