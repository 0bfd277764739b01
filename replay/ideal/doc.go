// Package ideal is the fabric's fair-share yardstick: every flow of a trace
// at its max-min fair share of the ports on its path (the simulator's ECMP
// paths, replay.Router, rerouted as the simulator reroutes them when a
// link fails), with no queues, no PFC and no marking. It is not
// an ECN policy but the best any of them could approach (graphcc eval
// --policies ideal).
package ideal
