package gnn

import (
	"fmt"
	"math"
	"strings"
)

// FeatureSet names the per-port inputs of a GraphCC network. A model file
// records its set (Header.FeatureSet), and the policy computes that set's
// features for the network; the zero value is the paper's.
type FeatureSet uint8

// The feature sets.
const (
	// FeaturesPaper is the GraphCC paper's inputs: u, q and m at t, t-1 and
	// t-2, NumFeatures = 9 per port (the layout in features.go). The shipped
	// model's, and that of every model file that records no feature_set.
	FeaturesPaper FeatureSet = iota
	// FeaturesFlowMix is FeaturesPaper followed by the flow-mix features,
	// FlowMixPerStep at t, t-1 and t-2, newest first, 18 per port:
	//
	//	[u_t, q_t, m_t, … m_t-2 | s_t, w_t, h_t, s_t-1, w_t-1, h_t-1, s_t-2, w_t-2, h_t-2]
	//
	// with, from control.PortSample, each in [0, 1] or [0, MaxQueue]:
	//
	//   - s: the start fraction (StartFraction, flow starts per data
	//     packet enqueued) on a log scale, 1 + log10(x)/StartDecades
	//     clamped to [0, 1]: 1 when every packet starts a flow (one-packet
	//     RPCs), 0 at one start per 1000 packets or fewer (megabyte
	//     flows), and 0 without a start;
	//   - w: the queued fraction (QueuedFraction), the data packets that
	//     met more than control.EmptyDepth packets ahead, in [0, 1];
	//   - h: the 90th-percentile enqueue depth (QueueHigh, bytes) over the
	//     port's queue scale, clamped to [0, MaxQueue], as q.
	FeaturesFlowMix
)

// Flow-mix layout: FlowMixPerStep numbers per step, at offsets FeatStart,
// FeatQueued and FeatHigh of the step, the steps after the paper's
// NumFeatures.
const (
	FlowMixPerStep = 3
	FeatStart      = 0 // offset of s in a flow-mix step
	FeatQueued     = 1 // offset of w in a flow-mix step
	FeatHigh       = 2 // offset of h in a flow-mix step
)

// StartDecades is the decades of the start fraction that s spans: from
// 10^-StartDecades (s = 0) to 1 (s = 1).
const StartDecades = 3

// FlowMixLayoutID identifies the flow-mix features appended to the paper's
// (FeatureLayoutID); FeaturesFlowMix's layout is the two joined by " + ".
// Change it whenever one of them changes meaning.
const FlowMixLayoutID = "flowmix/v1 steps=t,t-1,t-2 step=s,w,h s=1+log10(starts/data-packets)/3 w=queued(>1pkt)/data-packets h=p90-depth/(256KB*rate/25G)/4"

var featureSetNames = [...]string{FeaturesPaper: "paper", FeaturesFlowMix: "flowmix"}

// FeatureSets returns every feature set, the default first.
func FeatureSets() []FeatureSet { return []FeatureSet{FeaturesPaper, FeaturesFlowMix} }

// String returns the set's name: "paper" or "flowmix".
func (s FeatureSet) String() string {
	if int(s) < len(featureSetNames) {
		return featureSetNames[s]
	}
	return fmt.Sprintf("featureset(%d)", uint8(s))
}

// ParseFeatureSet returns the feature set named name ("paper" or
// "flowmix").
func ParseFeatureSet(name string) (FeatureSet, error) {
	for _, s := range FeatureSets() {
		if name == s.String() {
			return s, nil
		}
	}
	return 0, fmt.Errorf("gnn: unknown feature set %q (want %s)", name, featureSetList())
}

// featureSetList returns the names of the sets, for errors and help.
func featureSetList() string {
	names := make([]string, 0, len(featureSetNames))
	for _, s := range FeatureSets() {
		names = append(names, s.String())
	}
	return strings.Join(names, " or ")
}

// Len returns the inputs per port of the set: 9 or 18.
func (s FeatureSet) Len() int {
	if s == FeaturesFlowMix {
		return NumFeatures + FeatureSteps*FlowMixPerStep
	}
	return NumFeatures
}

// LayoutID returns the identifier of the set's inputs that model files
// record (Header.FeatureLayout).
func (s FeatureSet) LayoutID() string {
	if s == FeaturesFlowMix {
		return FeatureLayoutID + " + " + FlowMixLayoutID
	}
	return FeatureLayoutID
}

// Shape returns GraphCC's shape (DefaultShape) on the set's inputs.
func (s FeatureSet) Shape() Shape {
	sh := DefaultShape()
	sh.Features = s.Len()
	return sh
}

// headerName returns the set as a model file's feature_set records it:
// empty for FeaturesPaper, so that files of the paper's set keep the bytes
// they had before the field existed.
func (s FeatureSet) headerName() string {
	if s == FeaturesPaper {
		return ""
	}
	return s.String()
}

// featureSetOfHeader returns the set a model file's feature_set names:
// FeaturesPaper if it is empty.
func featureSetOfHeader(name string) (FeatureSet, error) {
	if name == "" {
		return FeaturesPaper, nil
	}
	return ParseFeatureSet(name)
}

// startFeature is s of the flow-mix features: the start fraction x on a
// log scale (see FeaturesFlowMix).
func startFeature(x float64) float64 {
	if !(x > 0) {
		return 0
	}
	return clamp(1+math.Log10(x)/StartDecades, 1)
}

// The flow-mix set must fit the network's zero-padded first state.
var _ = [1]struct{}{}[(NumFeatures+FeatureSteps*FlowMixPerStep)/(Hidden+1)]
