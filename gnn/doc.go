// Package gnn holds graphcc's learning core: the GraphCC message-passing
// Q-network, the per-agent MLP Q-network of the ACC baseline, the Adam
// optimizer, the Huber loss and the model file format; the action tables
// of ECN settings (ActionSet: the paper's, the extended one and the rpc one; Action, and
// MaxKMax, the deepest queue any may ask for);
// the trainer and its training curve (WriteCurve).
//
// Everything is float64. Every network keeps all its parameters in one flat
// []float64 so that the optimizer, checkpoints and target-network copies treat
// a model as one vector. Forward and Backward write into caller-provided
// buffers (a workspace sized once per shape) and do not allocate. Shape
// mismatches are programming errors and panic with a "gnn: …" message, as
// gonum's floats package does.
package gnn
