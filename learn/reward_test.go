package learn

import (
	"graphcc/internal/testfabric"
	"testing"

	"graphcc/control"
	"graphcc/gnn"
	"graphcc/topo"
)

func TestRewardShapeF(t *testing.T) {
	for _, c := range []struct {
		shape RewardShape
		x, f  float64
	}{
		{Linear, 0, 1}, {Linear, 0.5, 0.5}, {Linear, 1, 0}, {Linear, 2, 0}, {Linear, -1, 1},
		{Convex, 0, 1}, {Convex, 0.5, 0.25}, {Convex, 1, 0}, {Convex, 0.25, 0.5625}, {Convex, 3, 0},
		{Concave, 0, 1}, {Concave, 0.5, 0.75}, {Concave, 1, 0}, {Concave, 0.25, 0.9375}, {Concave, -2, 1},
	} {
		if got := c.shape.F(c.x); !near(got, c.f) {
			t.Errorf("%v.F(%v) = %v, want %v", c.shape, c.x, got, c.f)
		}
	}
	// Convex lies below Linear inside (0, 1), Concave above it, and all
	// decrease.
	for x := 0.05; x < 1; x += 0.05 {
		if Convex.F(x) >= Linear.F(x) || Convex.F(x+0.01) >= Convex.F(x) {
			t.Errorf("convex shape at %v: %v vs linear %v", x, Convex.F(x), Linear.F(x))
		}
		if Concave.F(x) <= Linear.F(x) || Concave.F(x+0.01) >= Concave.F(x) {
			t.Errorf("concave shape at %v: %v vs linear %v", x, Concave.F(x), Linear.F(x))
		}
	}
	for _, s := range []RewardShape{Linear, Convex, Concave} {
		got, err := ParseRewardShape(s.String())
		if err != nil || got != s {
			t.Errorf("ParseRewardShape(%q) = %v, %v", s.String(), got, err)
		}
	}
	if _, err := ParseRewardShape("cubic"); err == nil {
		t.Error("ParseRewardShape(cubic) succeeded")
	}
}

func TestReward(t *testing.T) {
	f := testfabric.SmallClos(t)
	g25, g100 := 25*topo.Gbps, 100*topo.Gbps
	// Agents: a 25G leaf->host port and a 100G port; queue scale 256 KB per 25G.
	var down25, up100 topo.PortID = -1, -1
	for _, p := range f.Agents() {
		switch r := f.Ports[p].Rate; {
		case r == g25 && down25 < 0:
			down25 = p
		case r == g100 && up100 < 0:
			up100 = p
		}
	}
	agents := []topo.PortID{down25, up100}
	tel := &control.Telemetry{Interval: testDt, Ports: make([]control.PortSample, len(f.Ports))}
	for _, c := range []struct {
		name           string
		cfg            gnn.FeatureConfig
		u              float64 // utilization of both ports
		q25, q100      int64   // mean enqueue depth, bytes
		linear, convex [2]float64
	}{
		{"x=0 u=0", gnn.FeatureConfig{RewardQueue: 256000}, 0, 0, 0, [2]float64{0.7, 0.7}, [2]float64{0.7, 0.7}},
		{"x=0 u=1", gnn.FeatureConfig{RewardQueue: 256000}, 1, 0, 0, [2]float64{1, 1}, [2]float64{1, 1}},
		{"x=0.5 u=0.5", gnn.FeatureConfig{RewardQueue: 256000}, 0.5, 128000, 512000,
			[2]float64{0.7*0.5 + 0.15, 0.7*0.5 + 0.15}, [2]float64{0.7*0.25 + 0.15, 0.7*0.25 + 0.15}},
		{"x=1 u=1", gnn.FeatureConfig{RewardQueue: 256000}, 1, 256000, 1024000, [2]float64{0.3, 0.3}, [2]float64{0.3, 0.3}},
		{"x beyond 1, u clamped to 1", gnn.FeatureConfig{RewardQueue: 256000}, 1.4, 4 * 256000, 2 * 1024000, [2]float64{0.3, 0.3}, [2]float64{0.3, 0.3}},
		// the default Q is DefaultRewardQueueKB = 25 KB per 25G
		{"default Q", gnn.FeatureConfig{}, 0, 12500, 50000, [2]float64{0.35, 0.35}, [2]float64{0.175, 0.175}},
		// Q = 128 KB per 25G: x = 0.5 at 64 KB, and q beyond the
		// feature clamp still counts as x = 1.
		{"Q=128KB", gnn.FeatureConfig{RewardQueue: 128000}, 0, 64000, 100 * 512000,
			[2]float64{0.35, 0}, [2]float64{0.175, 0}},
	} {
		z := gnn.NewFeaturizer(f, c.cfg)
		tel.Ports[down25] = testfabric.Sample(c.u, 0, c.q25, g25)
		tel.Ports[up100] = testfabric.Sample(c.u, 0, c.q100, g100)
		z.Observe(tel)
		dst := make([]float64, 2)
		for _, sc := range []struct {
			shape RewardShape
			want  [2]float64
		}{{Linear, c.linear}, {Convex, c.convex}} {
			Reward(dst, z, agents, sc.shape, DefaultWeightQ)
			if !near(dst[0], sc.want[0]) || !near(dst[1], sc.want[1]) {
				t.Errorf("%s %v: rewards %v, want %v", c.name, sc.shape, dst, sc.want)
			}
		}
	}
	// weightQ weighs the terms: 0 is throughput only, 1 latency only.
	z := gnn.NewFeaturizer(f, gnn.FeatureConfig{RewardQueue: 256000})
	tel.Ports[down25] = testfabric.Sample(0.5, 0, 128000, g25)
	z.Observe(tel)
	dst := make([]float64, 1)
	for _, c := range []struct{ w, want float64 }{{0, 0.5}, {1, 0.25}, {0.5, 0.375}, {0.25, 0.25*0.25 + 0.75*0.5}} {
		Reward(dst, z, agents[:1], Convex, c.w)
		if !near(dst[0], c.want) {
			t.Errorf("weightQ %v: reward %v, want %v", c.w, dst[0], c.want)
		}
	}
}

func TestRewardMeter(t *testing.T) {
	f := testfabric.SmallClos(t)
	agents := f.Agents()
	tel := &control.Telemetry{Interval: testDt, Ports: make([]control.PortSample, len(f.Ports))}
	// Every agent its own utilization and queue; hosts' ports are busy and
	// queued too, and must not count.
	for i, p := range f.Ports {
		tel.Ports[i] = testfabric.Sample(float64(i%5)/4, 0, int64(3000*(i%11)), p.Rate)
	}
	for _, shape := range []RewardShape{Linear, Convex, Concave} {
		for _, q := range []float64{0, 8000, 64000} {
			c := gnn.FeatureConfig{RewardQueue: q}
			m := NewRewardMeter(f, c, shape, DefaultWeightQ)
			z := gnn.NewFeaturizer(f, c)
			z.Observe(tel)
			r := make([]float64, len(agents))
			Reward(r, z, agents, shape, DefaultWeightQ)
			var want float64
			for _, v := range r {
				want += v / float64(len(agents))
			}
			if got := m.Score(tel); !near(got, want) {
				t.Errorf("%v Q=%v: score %v, want the agents' mean reward %v", shape, q, got, want)
			}
			if allocs := testing.AllocsPerRun(10, func() { m.Score(tel) }); allocs != 0 {
				t.Errorf("Score allocates %v times", allocs)
			}
		}
	}
	// It scores the interval it is given, not an average with earlier ones.
	m := NewRewardMeter(f, gnn.FeatureConfig{}, Convex, DefaultWeightQ)
	m.Score(tel)
	idle := &control.Telemetry{Interval: testDt, Ports: make([]control.PortSample, len(f.Ports))}
	if got := m.Score(idle); !near(got, DefaultWeightQ) {
		t.Errorf("idle interval after a busy one: score %v, want %v", got, DefaultWeightQ)
	}
}
