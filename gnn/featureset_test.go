package gnn

import (
	"bytes"
	"errors"
	"fmt"
	"graphcc/internal/testfabric"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"graphcc/control"
)

func TestParseFeatureSet(t *testing.T) {
	tests := []struct {
		name    string
		want    FeatureSet
		wantErr string
	}{
		{"paper", FeaturesPaper, ""},
		{"flowmix", FeaturesFlowMix, ""},
		{"", 0, `unknown feature set "" (want paper or flowmix)`},
		{"FlowMix", 0, `unknown feature set "FlowMix"`},
	}
	for _, tt := range tests {
		got, err := ParseFeatureSet(tt.name)
		if tt.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("ParseFeatureSet(%q): error %v, want %q", tt.name, err, tt.wantErr)
			}
			continue
		}
		if err != nil || got != tt.want || got.String() != tt.name {
			t.Errorf("ParseFeatureSet(%q) = %v, %v", tt.name, got, err)
		}
	}
	if FeatureSet(9).String() != "featureset(9)" {
		t.Errorf("unknown set's name %q", FeatureSet(9).String())
	}
}

func TestFeatureSetShapes(t *testing.T) {
	tests := []struct {
		set    FeatureSet
		len    int
		layout string
		header string
	}{
		{FeaturesPaper, 9, FeatureLayoutID, ""},
		{FeaturesFlowMix, 18, FeatureLayoutID + " + " + FlowMixLayoutID, "flowmix"},
	}
	for _, tt := range tests {
		sh := tt.set.Shape()
		if tt.set.Len() != tt.len || sh.Features != tt.len || tt.set.LayoutID() != tt.layout || tt.set.headerName() != tt.header {
			t.Errorf("%v: len %d, shape %+v, layout %q, header %q", tt.set, tt.set.Len(), sh, tt.set.LayoutID(), tt.set.headerName())
		}
		if err := sh.Validate(); err != nil {
			t.Errorf("%v: %v", tt.set, err)
		}
		if sh.NumParams() != DefaultShape().NumParams() {
			t.Errorf("%v: %d parameters, the paper's shape has %d", tt.set, sh.NumParams(), DefaultShape().NumParams())
		}
	}
}

// TestFlowMixLayoutID ties the flow-mix layout identifier to the constants
// it describes.
func TestFlowMixLayoutID(t *testing.T) {
	if FeatStart != 0 || FeatQueued != 1 || FeatHigh != 2 || FlowMixPerStep != 3 {
		t.Fatal("flow-mix offsets changed: change FlowMixLayoutID")
	}
	want := fmt.Sprintf("flowmix/v1 steps=t,t-1,t-2 step=s,w,h s=1+log10(starts/data-packets)/%d w=queued(>%dpkt)/data-packets h=p%d-depth/(%dKB*rate/25G)/%g",
		StartDecades, control.EmptyDepth, control.HighDepthPercent, DefaultQueueScaleKB, MaxQueue)
	if FlowMixLayoutID != want {
		t.Errorf("FlowMixLayoutID = %q, want %q", FlowMixLayoutID, want)
	}
}

func TestStartFeature(t *testing.T) {
	tests := []struct{ x, want float64 }{
		{0, 0}, {math.NaN(), 0}, {-1, 0},
		{1, 1}, {1.2, 1}, // a packet passing between two counter reads
		{0.1, 2.0 / 3}, {0.01, 1.0 / 3}, {0.001, 0}, {1e-5, 0},
	}
	for _, tt := range tests {
		if got := startFeature(tt.x); math.Abs(got-tt.want) > 1e-12 {
			t.Errorf("startFeature(%v) = %v, want %v", tt.x, got, tt.want)
		}
	}
}

// TestFlowMixFeatures: the flow-mix featurizer gives the paper's features
// unchanged in the first NumFeatures of a row, and after them s, w and h of
// t, t-1 and t-2.
func TestFlowMixFeatures(t *testing.T) {
	f := testfabric.SmallClos(t)
	paper, mix := NewFeaturizer(f, FeatureConfig{}), NewFeaturizerSet(f, FeaturesFlowMix, FeatureConfig{})
	if mix.Set() != FeaturesFlowMix || mix.Width() != 18 || paper.Width() != NumFeatures {
		t.Fatalf("sets %v %v, widths %d %d", paper.Set(), mix.Set(), paper.Width(), mix.Width())
	}
	const p = 0 // a 25 Gbps port: queue scale 256 000 bytes
	if mix.QueueScale(p) != 256_000 {
		t.Fatalf("queue scale %v", mix.QueueScale(p))
	}
	tel := &control.Telemetry{Interval: testDt, Ports: make([]control.PortSample, len(f.Ports))}
	// Each step: the port's enqueue depths and flow starts, and the s, w, h
	// they give.
	type step struct {
		depths  []int64
		starts  int64
		s, w, h float64
	}
	seq := []step{
		{depths: []int64{0, 0, 1, 1}, starts: 4, s: 1, w: 0, h: 1048.0 / 256_000},
		// rank 9 of 10 is 47, in the bucket 32–47
		{depths: []int64{0, 40, 41, 42, 43, 44, 45, 46, 47, 48}, starts: 1, s: 2.0 / 3, w: 0.9, h: 32 * 1048.0 / 256_000},
		{},
		{depths: []int64{4000, 4000}, starts: 0, s: 0, w: 1, h: 4}, // 3072 packets ≈ 3.2 MB: clamped
	}
	var want [][3]float64 // newest first
	for k, st := range seq {
		smp := control.PortSample{TxBytes: 1000 * int64(k), FlowStarts: st.starts}
		for _, d := range st.depths {
			smp.EnqHist.Add(d)
		}
		tel.Ports[p] = smp
		paper.Observe(tel)
		mix.Observe(tel)
		want = append([][3]float64{{st.s, st.w, st.h}}, want...)
		row := mix.Features()[p*18 : (p+1)*18]
		if !bytes.Equal(f64bytes(row[:NumFeatures]), f64bytes(paper.Features()[p*NumFeatures:(p+1)*NumFeatures])) {
			t.Errorf("step %d: the flow-mix row's first %d features %v differ from the paper's %v", k, NumFeatures, row[:NumFeatures], paper.Features()[p*NumFeatures:(p+1)*NumFeatures])
		}
		for age := range FeatureSteps {
			var w [3]float64
			if age < len(want) {
				w = want[age]
			}
			got := row[NumFeatures+age*FlowMixPerStep : NumFeatures+(age+1)*FlowMixPerStep]
			if math.Abs(got[FeatStart]-w[0]) > 1e-12 || math.Abs(got[FeatQueued]-w[1]) > 1e-12 || math.Abs(got[FeatHigh]-w[2]) > 1e-12 {
				t.Errorf("step %d, t-%d: s, w, h = %v, want %v", k, age, got, w)
			}
		}
	}
	mix.Reset()
	for i, v := range mix.Features() {
		if v != 0 {
			t.Fatalf("feature %d is %v after Reset", i, v)
		}
	}
}

// f64bytes returns the bits of xs, for exact comparison.
func f64bytes(xs []float64) []byte {
	b := make([]byte, 0, 8*len(xs))
	for _, x := range xs {
		b = fmt.Appendf(b, "%016x", math.Float64bits(x))
	}
	return b
}

// TestFeatureSetModelFiles: a model records its feature set; a file of the
// paper's set has no feature_set field (the bytes of files written before
// it), and GraphCCExpect accepts either set only with its own features and
// layout.
func TestFeatureSetModelFiles(t *testing.T) {
	for _, set := range FeatureSets() {
		m := NewModelSet(set, rand.New(rand.NewPCG(3, 3)))
		b, err := m.File(ActionTableID, map[string]string{"k": "v"}).Marshal()
		if err != nil {
			t.Fatal(err)
		}
		if has := bytes.Contains(b, []byte(`"feature_set"`)); has != (set != FeaturesPaper) {
			t.Errorf("%v: feature_set in the header: %v", set, has)
		}
		file, err := Unmarshal(b, set.String(), GraphCCExpect())
		if err != nil {
			t.Fatalf("%v: %v", set, err)
		}
		back, err := file.Model()
		if err != nil {
			t.Fatal(err)
		}
		if back.FeatureSet != set || back.Features != set.Len() || file.FeatureLayout != set.LayoutID() {
			t.Errorf("%v: read back as set %v of %d features, layout %q", set, back.FeatureSet, back.Features, file.FeatureLayout)
		}
		again, _ := file.Marshal()
		if !bytes.Equal(again, b) {
			t.Errorf("%v: a file read and written again changed", set)
		}
	}

	mixed := func(edit func(h *Header)) []byte {
		f := NewModelSet(FeaturesFlowMix, nil).File(ActionTableID, nil)
		edit(&f.Header)
		b, err := f.Marshal()
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	tests := []struct {
		name    string
		b       []byte
		wantErr error
		msg     string
	}{
		{"unknown set", nnWithHeader(mixed(func(*Header) {}), func(h string) string {
			return strings.Replace(h, `"feature_set":"flowmix"`, `"feature_set":"rpc"`, 1)
		}), ErrBadHeader, `feature_set: gnn: unknown feature set "rpc"`},
		{"flowmix layout, paper width", mixed(func(h *Header) { h.Features = NumFeatures }), ErrMismatch, "features is 9, want 18"},
		{"flowmix width, paper layout", mixed(func(h *Header) { h.FeatureLayout = FeatureLayoutID }), ErrMismatch, "feature_layout is"},
		{"no set, flowmix width", mixed(func(h *Header) { h.FeatureSet = "" }), ErrMismatch, "features is 18, want 9"},
	}
	for _, tt := range tests {
		_, err := Unmarshal(tt.b, tt.name, GraphCCExpect())
		if !errors.Is(err, tt.wantErr) || !strings.Contains(fmt.Sprint(err), tt.msg) {
			t.Errorf("%s: error %v, want %v with %q", tt.name, err, tt.wantErr, tt.msg)
		}
	}

	acc := MLPNetsFile([]*MLPNet{NewMLPNet(ACCNumFeatures, 4, 2, nil)}, []string{"p"}, ActionTableID, nil)
	acc.FeatureSet = "flowmix"
	if _, err := acc.Marshal(); !errors.Is(err, ErrBadHeader) {
		t.Errorf("an ACC file with a feature set: error %v, want ErrBadHeader", err)
	}
}

// TestNewGraphCCChecksFeatureSet: a model whose width is not its set's is
// refused.
func TestNewGraphCCChecksFeatureSet(t *testing.T) {
	m := NewModelSet(FeaturesFlowMix, nil)
	m.FeatureSet = FeaturesPaper
	if _, err := NewGraphCC(m, testfabric.SmallClos(t), FeatureConfig{}); err == nil || !strings.Contains(err.Error(), "needs a model of 9 features (the paper set)") {
		t.Errorf("NewGraphCC of a flow-mix-wide model on the paper set: %v", err)
	}
}
