// Package learn trains gnn's networks on the simulator: multi-agent double
// deep Q-learning (or imitation of a teacher policy) of the GraphCC
// message-passing Q-network and of the ACC baseline's per-port networks,
// with everything a run needs and leaves behind: exploration, rewards, the
// replay buffer, the optimizer, checkpoints and the training curve.
//
// # Training
//
// Train runs one training run of a Config (DefaultConfig is the paper's
// settings) and returns its Result: the trained networks, the statistics
// of every round (EpisodeStats) and, with validation (ValidateSet), the
// best validated networks; Result.ModelFile is the model file a run
// leaves (its metadata, the weights validation picked: Picked) and
// Result.WriteSummary its closing lines. NewTrainer and Trainer.Run are Train in two
// steps. A run that cannot reach, or did not reach, its first minibatch
// update fails with a *NoUpdatesError wrapping ErrNoUpdates. The same
// Config and seed give the same weights, bit for bit.
//
// # Exploration and reward
//
// Explorer (NewExplorer) is a gnn.GraphCC policy with per-agent
// epsilon-greedy exploration that hands every transition to its OnStep and,
// with a teacher (SetTeacher), labels them with the teacher's actions; the
// trainer explores ACC the same way. Reward is the paper's per-port reward
// of a RewardShape (Linear, Convex, Concave; ParseRewardShape) weighted by
// DefaultWeightQ; RewardMeter scores any policy's intervals with it. An
// Objective (PortObjective, FlowObjective, PathObjective, ImitateObjective;
// ParseObjective) is what the agents are rewarded for; FlowRewardScale and
// PathRewardScale scale the flow rewards.
//
// # Learning
//
// ReplayBuffer (NewReplayBuffer, NewReplayBufferLen) holds the most recent
// transitions of every agent; NoAction marks an agent that did not act.
// Adam (NewAdam) is the optimizer over a network's flat parameter vector,
// ClipNorm its gradient clip; Huber and HuberDeriv (HuberDelta) are the
// temporal-difference loss.
//
// # Checkpoints and curves
//
// Checkpoint is a run's whole state after a round of episodes, from which
// Config.Resume continues it exactly: Save and WriteTo write one,
// LoadCheckpoint and ReadCheckpoint read one (CheckpointMagic,
// CheckpointVersion; ErrCheckpoint). WriteCurve writes the rounds'
// statistics as the training curve's CSV (CurveHeader). RunInfo is what a
// run records of where it came from: its checkpoints' meta
// (CheckpointMeta), the check that a checkpoint resumed is of the same
// run (CheckResume), and its model file's meta (ModelMeta).
//
// Misuse of a buffer or optimizer (a length mismatch, an empty buffer) is a
// programming error and panics with a "learn: …" message, as in gnn.
package learn
