// Package gnn holds graphcc's networks and the policies that run them: the
// GraphCC message-passing Q-network, the per-agent MLP Q-networks of the ACC
// baseline, their fast inference, the features they read, the action tables
// they choose from, the model file format, and the GraphCC and ACC
// policies, central and decomposed into per-switch agents. Training them is
// package learn's job.
//
// # Networks
//
// Model is the GraphCC Q-network (NewModel, NewModelSet, NewModelShape; its
// Shape, DefaultShape): message passing over the agent graph, one Q row per
// agent port and, with a host head, one per host NIC port. Forward, Backward
// and Greedy run it in a Workspace sized once per graph (NewWorkspace).
// Inference (NewInference) is its float32 fast path for deciding. MLP and
// MLPNet (NewMLPNet, with an MLPWorkspace) are ACC's per-port network.
//
// Everything but Inference is float64. Every network keeps all its
// parameters in one flat []float64 so that an optimizer, checkpoints and
// target-network copies treat a model as one vector. Forward and Backward
// write into caller-provided buffers and do not allocate. Shape mismatches
// are programming errors and panic with a "gnn: …" message, as gonum's
// floats package does.
//
// # Features
//
// Featurizer (NewFeaturizer, NewFeaturizerSet, NewPortFeaturizer) turns a
// fabric's telemetry (control.Telemetry) into the features of a FeatureSet
// (FeaturesPaper, FeaturesFlowMix; FeatureSets, ParseFeatureSet), normalized
// by a FeatureConfig, and ACC's state (ACCFeatures); it also reads out what
// the training reward needs (RewardInputs). FeatureLayoutID and its kin
// name a layout in model files.
//
// # Actions
//
// ActionSet is a table of ECN settings an agent chooses among
// (ActionsPaper, ActionsExtended, ActionsRPC; ActionSets, ParseActionSet,
// ActionSetOfTable): Setting turns an action into a control.ECN at a
// port's rate, Nearest a setting into the closest action. Action and
// ActionLevels read the paper's table; MaxKMax is the deepest queue any
// table may ask for. A host head chooses the hosts' DCQCN constants from a
// HostTable: the grid (HostAction, NearestHostAction) or profiles
// (NewHostTable, FormatHostProfile).
//
// # Model files
//
// File is a model file: a JSON Header and the parameters (Read, Load,
// Unmarshal, with an Expect such as GraphCCExpect or ACCExpect; MLPNetsFile
// for ACC's networks). EmbeddedModel and EmbeddedFile are the switch-only
// model built into the binary (policy's graphcc:bare-switch; the default
// graphcc's model is package models').
//
// # Policies
//
// GraphCC (NewGraphCC) is the central GraphCC policy, a control.Policy and,
// with a host head, a control.HostDecider; Act lets a trainer's exploring
// policy act through it. Floor (NewFloor) holds a GraphCC policy to a base
// policy's settings unless its Q-gap over the base's action passes Gate
// and the other FloorGates (a margin per head, a hold on link events;
// UniformGates) let it. ACC (NewACC, NewACCFrom, PortNames) is the ACC
// baseline, its Observe, Greedy and Act the same for its trainer. Agent
// (NewAgent) is one switch's share of GraphCC's step, SwitchView and
// ViewPort what it sees; PerSwitch runs every switch's agent within the step
// and InBand (InBandConfig, or InBandSettings as written) exchanges their
// messages as packets on the simulator's links (docs/agents.md). A Floor
// over a fixed base runs as per-switch agents too (NewPerSwitchFloor,
// NewInBandFloor): each Agent held to the base by its AgentFloor, the
// Floor's gate on its own ports and hosts, its hold on its own links.
package gnn
