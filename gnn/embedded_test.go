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

// Fingerprints of what the shipped model decides, taken before the
// flow-mix feature set existed (commit 8fcd416): the features (float64
// bits) and the actions of its agents over five steps of synthetic
// telemetry, and the FCT records of a 3 ms simulation it controls. A change to the paper features, the model
// file's reading or the simulator's results shows here.
const (
	embeddedFeaturesFNV uint64 = 0xf9ff193e62cea093
	embeddedActionsFNV  uint64 = 0xf1bf6ceef0c1f972
	embeddedFCTFNV      uint64 = 0xb823aca7b8b022b4
)

// TestEmbeddedModelUnchanged: the shipped model loads as a model of the
// paper's features and decides, step for step and in a simulation, as it
// did before the feature sets were introduced.
func TestEmbeddedModelUnchanged(t *testing.T) {
	m, err := EmbeddedModel()
	if err != nil {
		t.Fatal(err)
	}
	f := nnDefaultClos(t)
	g := NewGraphCC(m, f, FeatureConfig{})
	defer g.Inference().Close()
	var feats, actions []int64
	for step := range uint64(5) {
		tel := nnBenchTelemetry(f, 100+step)
		g.Decide(tel, make([]control.ECN, len(f.Ports)))
		for _, x := range g.Featurizer().Features() {
			feats = append(feats, int64(math.Float64bits(x)))
		}
		for _, a := range g.LastActions() {
			actions = append(actions, int64(a))
		}
	}
	if got := fnvInts(feats); got != embeddedFeaturesFNV {
		t.Errorf("the paper features hash to %#x, want %#x", got, embeddedFeaturesFNV)
	}
	if got := fnvInts(actions); got != embeddedActionsFNV {
		t.Errorf("the shipped model's actions hash to %#x, want %#x", got, embeddedActionsFNV)
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
	if got := fnvInts(recs); got != embeddedFCTFNV {
		t.Errorf("the FCTs under the shipped model hash to %#x, want %#x (%d flows)", got, embeddedFCTFNV, len(r.FCT))
	}
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
