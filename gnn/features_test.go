package gnn

import (
	"graphcc/internal/testfabric"
	"math"
	"testing"

	"graphcc/control"
	"graphcc/topo"
)

const testDt = testfabric.SampleInterval

func near(a, b float64) bool { return math.Abs(a-b) <= 1e-12 }

func TestFeaturizer(t *testing.T) {
	f := testfabric.SmallClos(t)
	host, fab := topo.PortID(0), topo.PortID(8)
	if f.Ports[host].Rate != 25*topo.Gbps || f.Ports[fab].Rate != 100*topo.Gbps {
		t.Fatalf("unexpected rates %d %d", f.Ports[host].Rate, f.Ports[fab].Rate)
	}
	z := NewFeaturizer(f, FeatureConfig{})
	if got := z.QueueScale(host); got != 256000 {
		t.Errorf("queue scale at 25G = %v, want 256000", got)
	}
	if got := z.QueueScale(fab); got != 1024000 {
		t.Errorf("queue scale at 100G = %v, want 1024000", got)
	}
	if len(z.Features()) != len(f.Ports)*NumFeatures {
		t.Fatalf("features len %d", len(z.Features()))
	}
	tel := func(s map[topo.PortID]control.PortSample) *control.Telemetry {
		tt := &control.Telemetry{Interval: testDt, Ports: make([]control.PortSample, len(f.Ports))}
		for p, v := range s {
			tt.Ports[p] = v
		}
		return tt
	}
	type step struct {
		tel  map[topo.PortID]control.PortSample
		want map[topo.PortID][NumFeatures]float64
	}
	g25, g100 := 25*topo.Gbps, 100*topo.Gbps
	steps := []step{
		{ // t=1: t-1 and t-2 are zeros
			tel: map[topo.PortID]control.PortSample{
				host: testfabric.Sample(0.5, 0.1, 64000, g25),
				fab:  testfabric.Sample(0.25, 0, 512000, g100),
			},
			want: map[topo.PortID][NumFeatures]float64{
				host: {0.5, 0.25, 0.1, 0, 0, 0, 0, 0, 0},
				fab:  {0.25, 0.5, 0, 0, 0, 0, 0, 0, 0},
				1:    {},
			},
		},
		{ // t=2: clamping (u to 1.5, q to 4, m to 1) and the shift
			tel: map[topo.PortID]control.PortSample{
				host: testfabric.Sample(2, 3, 10*256000, g25),
				fab:  testfabric.Sample(1, 0.5, 256000, g100),
			},
			want: map[topo.PortID][NumFeatures]float64{
				host: {1.5, 4, 1, 0.5, 0.25, 0.1, 0, 0, 0},
				fab:  {1, 0.25, 0.5, 0.25, 0.5, 0, 0, 0, 0},
			},
		},
		{ // t=3: an idle interval; q is 0 when nothing was enqueued
			tel: map[topo.PortID]control.PortSample{
				host: {TxBytes: 0, QueueBytes: 99999},
			},
			want: map[topo.PortID][NumFeatures]float64{
				host: {0, 0, 0, 1.5, 4, 1, 0.5, 0.25, 0.1},
				fab:  {0, 0, 0, 1, 0.25, 0.5, 0.25, 0.5, 0},
			},
		},
		{ // t=4: t-2 of step 1 is dropped
			tel: map[topo.PortID]control.PortSample{
				host: testfabric.Sample(0.75, 0.5, 128000, g25),
			},
			want: map[topo.PortID][NumFeatures]float64{
				host: {0.75, 0.5, 0.5, 0, 0, 0, 1.5, 4, 1},
				fab:  {0, 0, 0, 0, 0, 0, 1, 0.25, 0.5},
			},
		},
	}
	for i, s := range steps {
		z.Observe(tel(s.tel))
		if z.Observations() != i+1 {
			t.Errorf("step %d: %d observations", i+1, z.Observations())
		}
		x := z.Features()
		for p, w := range s.want {
			row := x[int(p)*NumFeatures : int(p+1)*NumFeatures]
			for j := range w {
				if !near(row[j], w[j]) {
					t.Errorf("step %d port %d: features %v, want %v", i+1, p, row, w)
					break
				}
			}
		}
	}
	z.Reset()
	if z.Observations() != 0 {
		t.Errorf("after Reset: %d observations", z.Observations())
	}
	for i, v := range z.Features() {
		if v != 0 {
			t.Fatalf("after Reset feature %d = %v", i, v)
		}
	}
	z.Observe(tel(steps[0].tel))
	if row := z.Features()[:NumFeatures]; !near(row[0], 0.5) || row[3] != 0 || row[6] != 0 {
		t.Errorf("after Reset and one Observe: %v", row)
	}
}

func TestFeaturizerConfig(t *testing.T) {
	f := testfabric.SmallClos(t)
	z := NewFeaturizer(f, FeatureConfig{QueueScale: 100000, RewardQueue: 50000})
	if c := z.Config(); c.QueueScale != 100000 || c.RewardQueue != 50000 {
		t.Errorf("config %+v", c)
	}
	tt := &control.Telemetry{Interval: testDt, Ports: make([]control.PortSample, len(f.Ports))}
	tt.Ports[0] = testfabric.Sample(0, 0, 50000, 25*topo.Gbps)
	tt.Ports[8] = testfabric.Sample(0, 0, 50000, 100*topo.Gbps)
	z.Observe(tt)
	if q := z.Features()[0*NumFeatures+FeatQ]; !near(q, 0.5) {
		t.Errorf("q at 25G = %v, want 0.5", q)
	}
	if q := z.Features()[8*NumFeatures+FeatQ]; !near(q, 0.125) {
		t.Errorf("q at 100G = %v, want 0.125", q)
	}
	// A zero interval gives u = m = 0, never NaN or Inf.
	tt.Interval = 0
	tt.Ports[0] = testfabric.Sample(0.5, 0.5, 0, 25*topo.Gbps)
	z.Observe(tt)
	for i, v := range z.Features() {
		if j := i % NumFeatures; v != 0 && (j == FeatU || j == FeatM) {
			t.Errorf("feature %d = %v with a zero interval", i, v)
		}
	}
	for _, c := range []FeatureConfig{{QueueScale: -1}, {RewardQueue: math.Inf(1)}, {QueueScale: math.NaN()}} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("NewFeaturizer(%+v) did not panic", c)
				}
			}()
			NewFeaturizer(f, c)
		}()
	}
}

func TestACCFeatures(t *testing.T) {
	f := testfabric.SmallClos(t)
	z := NewFeaturizer(f, FeatureConfig{})
	n := len(f.Ports)
	dst := make([]float64, n*ACCNumFeatures)
	ecn := make([]control.ECN, n)
	tel := &control.Telemetry{Interval: testDt, Ports: make([]control.PortSample, n)}
	g25, g100 := 25*topo.Gbps, 100*topo.Gbps

	// Before any observation: zeros, nothing recorded.
	for i := range ecn {
		ecn[i] = control.ECN{KMin: 1, KMax: 2, PMax: 1}
	}
	z.ACCFeatures(dst, ecn)
	for i, v := range dst {
		if v != 0 {
			t.Fatalf("ACC feature %d = %v before any observation", i, v)
		}
	}

	settings := [][2]control.ECN{ // per step: port 0 (25G), port 8 (100G)
		{{KMin: 25600, KMax: 128000, PMax: 0.5}, {KMin: 102400, KMax: 512000, PMax: 0.25}},
		{{KMin: 2000e3, KMax: 3000e3, PMax: 1}, control.Alibaba(g100)},
		{{KMin: 0, KMax: 256000, PMax: 0.01}, {KMin: 0, KMax: 0, PMax: 0}},
	}
	samples := [][2]control.PortSample{
		{testfabric.Sample(0.5, 0.1, 64000, g25), testfabric.Sample(0.25, 0, 512000, g100)},
		{testfabric.Sample(1, 0.5, 128000, g25), testfabric.Sample(0.5, 0.25, 0, g100)},
		{testfabric.Sample(0.25, 0, 0, g25), testfabric.Sample(2, 0, 1024000, g100)},
	}
	want := [][2][ACCNumFeatures]float64{
		{
			{0.25, 0.5, 0.1, 0.1, 0.5, 0.5},
			{0.5, 0.25, 0, 0.1, 0.5, 0.25},
		},
		{
			{0.5, 1, 0.5, 4, 4, 1, 0.25, 0.5, 0.1, 0.1, 0.5, 0.5},
			{0, 0.5, 0.25, 400.0 / 1024, 1600.0 / 1024, 0.2, 0.5, 0.25, 0, 0.1, 0.5, 0.25},
		},
		{
			{0, 0.25, 0, 0, 1, 0.01, 0.5, 1, 0.5, 4, 4, 1, 0.25, 0.5, 0.1, 0.1, 0.5, 0.5},
			{1, 1.5, 0, 0, 0, 0, 0, 0.5, 0.25, 400.0 / 1024, 1600.0 / 1024, 0.2, 0.5, 0.25, 0, 0.1, 0.5, 0.25},
		},
	}
	for s := range settings {
		tel.Ports[0], tel.Ports[8] = samples[s][0], samples[s][1]
		z.Observe(tel)
		ecn[0], ecn[8] = settings[s][0], settings[s][1]
		z.ACCFeatures(dst, ecn)
		z.ACCFeatures(dst, ecn) // idempotent for one observation
		for k, p := range []int{0, 8} {
			row := dst[p*ACCNumFeatures : (p+1)*ACCNumFeatures]
			for j := range row {
				if !near(row[j], want[s][k][j]) {
					t.Errorf("step %d port %d: ACC features\n %v\nwant\n %v", s+1, p, row, want[s][k])
					break
				}
			}
			// q, u, m agree with the GraphCC features at every step.
			x := z.Features()[p*NumFeatures : (p+1)*NumFeatures]
			for st := range FeatureSteps {
				if row[st*6+ACCFeatQ] != x[st*3+FeatQ] || row[st*6+ACCFeatU] != x[st*3+FeatU] || row[st*6+ACCFeatM] != x[st*3+FeatM] {
					t.Errorf("step %d port %d: ACC q,u,m disagree with the features", s+1, p)
				}
			}
		}
	}
	// A step without ACCFeatures keeps the previous setting.
	z.Observe(tel)
	z.Observe(tel)
	ecn[0] = control.ECN{}
	z.ACCFeatures(dst, ecn)
	if got := dst[ACCFeaturesPerStep+ACCFeatKMax]; got != 1 { // t-1: step 3's kmax carried into the skipped step
		t.Errorf("kmax at t-1 = %v, want 1", got)
	}
	if got := dst[2*ACCFeaturesPerStep+ACCFeatKMax]; got != 1 {
		t.Errorf("kmax at t-2 = %v, want 1", got)
	}
}

func TestFeaturizerNoAlloc(t *testing.T) {
	f := testfabric.SmallClos(t)
	n := len(f.Ports)
	tel := &control.Telemetry{Interval: testDt, Ports: make([]control.PortSample, n)}
	for i := range tel.Ports {
		tel.Ports[i] = testfabric.Sample(0.3, 0.1, 5000, f.Ports[i].Rate)
		tel.Ports[i].FlowStarts = 1
	}
	dst := make([]float64, n*ACCNumFeatures)
	ecn := control.StaticSettings(f)
	for _, set := range FeatureSets() {
		z := NewFeaturizerSet(f, set, FeatureConfig{})
		if a := testing.AllocsPerRun(100, func() {
			z.Observe(tel)
			z.ACCFeatures(dst, ecn)
		}); a != 0 {
			t.Errorf("%v: Observe+ACCFeatures: %v allocations", set, a)
		}
	}
}
