package gnn

import (
	"encoding/binary"
	"hash/fnv"
	"math"
	"testing"

	"graphcc/control"
	"graphcc/replay"
	"graphcc/topo"
	"graphcc/workload"
)

// Fingerprints of what the issue-3 model (the shipped model until
// 2026-12-06, kept as testdata/issue3.model) decides, taken before the
// flow-mix feature set existed (commit 8fcd416): the features (float64
// bits) and the actions of its agents over five steps of synthetic
// telemetry, and the FCT records of a 3 ms simulation it controls. A
// change to the paper features, the model file's reading or the
// simulator's results shows here.
const (
	issue3FeaturesFNV uint64 = 0xf9ff193e62cea093
	issue3ActionsFNV  uint64 = 0xf1bf6ceef0c1f972
	issue3FCTFNV      uint64 = 0xb823aca7b8b022b4
)

// TestIssue3ModelUnchanged: the issue-3 model loads as a model of the
// paper's features and decides, step for step and in a simulation, as it
// did before the feature sets were introduced.
func TestIssue3ModelUnchanged(t *testing.T) {
	f, err := Load("testdata/issue3.model", GraphCCExpect())
	if err != nil {
		t.Fatal(err)
	}
	m, err := f.Model()
	if err != nil {
		t.Fatal(err)
	}
	feats, actions, fcts := decisionPrints(t, m)
	if feats != issue3FeaturesFNV {
		t.Errorf("the paper features hash to %#x, want %#x", feats, issue3FeaturesFNV)
	}
	if actions != issue3ActionsFNV {
		t.Errorf("the model's actions hash to %#x, want %#x", actions, issue3ActionsFNV)
	}
	if fcts != issue3FCTFNV {
		t.Errorf("the FCTs under the model hash to %#x, want %#x", fcts, issue3FCTFNV)
	}
}

// The same fingerprints of the shipped model (gnn/models/graphcc.model,
// since 2026-12-06: flow-mix features, the rpc actions, trained by
// imitation of each scenario's best setting of that table). Change them
// only with the model.
const (
	shippedFeaturesFNV uint64 = 0x70d13486e6e31de8
	shippedActionsFNV  uint64 = 0xf8aa470155ee4ae5
	shippedFCTFNV      uint64 = 0xf009acb3b916cf25
)

// TestEmbeddedModelUnchanged: the shipped model loads, is of the feature
// and action sets docs/learning.md says, and decides as when it was
// embedded.
func TestEmbeddedModelUnchanged(t *testing.T) {
	m, err := EmbeddedModel()
	if err != nil {
		t.Fatal(err)
	}
	if m.FeatureSet != FeaturesFlowMix || m.ActionSet != ActionsRPC || m.HostActions != 0 {
		t.Errorf("the shipped model: features %v, actions %v, %d host actions", m.FeatureSet, m.ActionSet, m.HostActions)
	}
	feats, actions, fcts := decisionPrints(t, m)
	if feats != shippedFeaturesFNV || actions != shippedActionsFNV || fcts != shippedFCTFNV {
		t.Errorf("the shipped model's features, actions and FCTs hash to %#x, %#x, %#x, want %#x, %#x, %#x",
			feats, actions, fcts, shippedFeaturesFNV, shippedActionsFNV, shippedFCTFNV)
	}
}

// decisionPrints returns the FNV-1a hashes of m's features and actions
// over five steps of synthetic telemetry on the default Clos, and of the
// FCT records of a 3 ms simulation m controls.
func decisionPrints(t *testing.T, m *Model) (feats, actions, fcts uint64) {
	t.Helper()
	f := nnDefaultClos(t)
	g := mustGraphCC(t, m, f, FeatureConfig{})
	defer g.Inference().Close()
	var fs, as []int64
	for step := range uint64(5) {
		tel := nnBenchTelemetry(f, 100+step)
		g.Decide(tel, make([]control.ECN, len(f.Ports)))
		for _, x := range g.Featurizer().Features() {
			fs = append(fs, int64(math.Float64bits(x)))
		}
		for _, a := range g.LastActions() {
			as = append(as, int64(a))
		}
	}
	gen := workload.DefaultGen()
	gen.Duration = 3 * topo.Millisecond
	flows, err := workload.Generate(f, gen)
	if err != nil {
		t.Fatal(err)
	}
	g.Reset()
	r, err := replay.Run(replay.Config{Fabric: f, Flows: flows, Policy: g, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	var recs []int64
	for _, c := range r.FCT {
		recs = append(recs, int64(c.Src), int64(c.Dst), c.Size, c.Start, c.FCT)
	}
	if len(recs) == 0 {
		t.Fatal("no flow finished")
	}
	return fnvInts(fs), fnvInts(as), fnvInts(recs)
}

// fnvInts is the FNV-1a hash of vs, little-endian.
func fnvInts(vs []int64) uint64 {
	h := fnv.New64a()
	var b [8]byte
	for _, v := range vs {
		binary.LittleEndian.PutUint64(b[:], uint64(v))
		h.Write(b[:])
	}
	return h.Sum64()
}
