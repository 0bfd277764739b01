package gnn

import (
	_ "embed"
)

// embeddedModel is the built-in switch-only GraphCC model (policy's
// graphcc:bare-switch, and held to the switch-only tuned constant
// graphcc:switch; the default graphcc from 2026-12-06 to 2026-12-08, whose
// model with a host head is package models'): trained by graphcc train
// --objective imitate to play, per regime, the settings graphcc tune found
// for five scenarios of the suite (the command that made it is in
// docs/learning.md, "The shipped model", and in the file's metadata). The
// issue-3 model it replaced, trained by reinforcement learning on the
// training scenario only, is testdata/issue3.model.
//
//go:embed models/graphcc.model
var embeddedModel []byte

// GraphCCExpect is what a GraphCC model file must hold to be used with this
// build: the message-passing network of docs/learning.md on one of the
// action sets (ActionSets) and one of the feature sets (FeatureSets), with
// that set's features.
func GraphCCExpect() Expect {
	return Expect{Kind: KindGraphCC, Hidden: Hidden, K: K, Actions: NumActions, AnyActionSet: true, AnyFeatureSet: true}
}

// ACCExpect is what an ACC model file must hold to be used with this build:
// per-port networks on ACC's state and the current action table.
func ACCExpect() Expect {
	return Expect{Kind: KindACC, Features: ACCNumFeatures, Actions: NumActions, ActionTable: ActionTableID, FeatureLayout: ACCFeatureLayoutID}
}

// EmbeddedFile returns the built-in switch-only model's file (weights and
// metadata).
func EmbeddedFile() (*File, error) {
	return Unmarshal(embeddedModel, "embedded graphcc.model", GraphCCExpect())
}

// EmbeddedModel returns the built-in switch-only GraphCC model.
func EmbeddedModel() (*Model, error) {
	f, err := EmbeddedFile()
	if err != nil {
		return nil, err
	}
	return f.Model()
}
