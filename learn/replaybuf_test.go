package learn

import (
	"math/rand/v2"
	"slices"
	"testing"

	"graphcc/gnn"
)

// transition returns a transition of the given shape whose every number
// derives from k; every seventh action is NoAction.
func transition(k, ports, agents int) (feat []float64, act []int, rew []float64, next []float64) {
	feat = make([]float64, ports*gnn.NumFeatures)
	next = make([]float64, ports*gnn.NumFeatures)
	for i := range feat {
		feat[i] = float64(k) + float64(i)/1024
		next[i] = -feat[i]
	}
	act = make([]int, agents)
	rew = make([]float64, agents)
	for i := range act {
		act[i] = (k + i) % gnn.NumActions
		if (k+i)%7 == 6 {
			act[i] = NoAction
		}
		rew[i] = float64(k) / 4
	}
	return feat, act, rew, next
}

func TestReplayBufferRing(t *testing.T) {
	const ports, agents, capacity = 3, 2, 4
	b := NewReplayBuffer(capacity, ports, agents)
	if b.Len() != 0 || b.Cap() != capacity || b.FeatureLen() != ports*gnn.NumFeatures || b.Agents() != agents {
		t.Fatalf("new buffer: len %d cap %d", b.Len(), b.Cap())
	}
	feat := make([]float64, ports*gnn.NumFeatures)
	next := make([]float64, ports*gnn.NumFeatures)
	act := make([]int, agents)
	rew := make([]float64, agents)
	for k := range 10 {
		slot := b.Add(transition(k, ports, agents))
		if slot != k%capacity {
			t.Errorf("Add %d went to slot %d", k, slot)
		}
		if want := min(k+1, capacity); b.Len() != want {
			t.Errorf("after %d Adds: Len %d, want %d", k+1, b.Len(), want)
		}
		if b.Added() != int64(k+1) {
			t.Errorf("Added %d", b.Added())
		}
		// Every slot holds the latest transition written to it.
		for i := range b.Len() {
			kk := k - (k-i+capacity)%capacity // the last Add that wrote slot i
			wf, wa, wr, wn := transition(kk, ports, agents)
			b.Features(i, feat)
			b.NextFeatures(i, next)
			b.Actions(i, act)
			b.Rewards(i, rew)
			if !slices.Equal(feat, wf) || !slices.Equal(next, wn) || !slices.Equal(act, wa) || !slices.Equal(rew, wr) {
				t.Fatalf("after %d Adds slot %d does not hold transition %d", k+1, i, kk)
			}
		}
	}
	b.Reset()
	if b.Len() != 0 || b.Added() != 0 {
		t.Errorf("after Reset: len %d", b.Len())
	}
	if slot := b.Add(transition(7, ports, agents)); slot != 0 {
		t.Errorf("first Add after Reset: slot %d", slot)
	}
}

// TestReplayBufferFabrics checks the fabric tags: "" first, others in
// order of first use, each slot's tag overwritten with its transition, and
// Reset forgetting them.
func TestReplayBufferFabrics(t *testing.T) {
	b := NewReplayBuffer(3, 1, 1)
	if !slices.Equal(b.Fabrics(), []string{""}) {
		t.Fatalf("new buffer's fabrics %q", b.Fabrics())
	}
	for k, tag := range []string{"x", "", "y z", "x"} {
		x, a, r, n := transition(k, 1, 1)
		b.AddOn(tag, x, a, r, n)
	}
	if !slices.Equal(b.Fabrics(), []string{"", "x", "y z"}) {
		t.Errorf("fabrics %q, want \"\", x, \"y z\"", b.Fabrics())
	}
	// slot 0 was overwritten by the fourth Add ("x"), 1 holds "", 2 "y z"
	for i, want := range []int{1, 0, 2} {
		if got := b.Fabric(i); got != want {
			t.Errorf("slot %d of fabric %d, want %d", i, got, want)
		}
	}
	b.Reset()
	if b.Add(transition(0, 1, 1)); !slices.Equal(b.Fabrics(), []string{""}) || b.Fabric(0) != 0 {
		t.Errorf("after Reset: fabrics %q, slot 0 of %d", b.Fabrics(), b.Fabric(0))
	}
}

func TestReplayBufferFloat32(t *testing.T) {
	b := NewReplayBuffer(1, 1, 1)
	feat := []float64{0, 1, 0.1, 0.25, 4, 1.5, 1e-9, 0.7, 0.3}
	b.Add(feat, []int{119}, []float64{0.7}, feat)
	got := make([]float64, gnn.NumFeatures)
	b.Features(0, got)
	for i := range feat {
		if d := got[i] - feat[i]; d > 1e-7 || d < -1e-7 {
			t.Errorf("feature %d: %v stored as %v", i, feat[i], got[i])
		}
	}
	act := []int{0}
	b.Actions(0, act)
	if act[0] != 119 {
		t.Errorf("action 119 stored as %d", act[0])
	}
}

func TestReplayBufferSample(t *testing.T) {
	b := NewReplayBuffer(50, 2, 3)
	for k := range 30 {
		b.Add(transition(k, 2, 3))
	}
	draw := func(seed uint64) []int {
		r := rand.New(rand.NewPCG(seed, 1))
		var out []int
		dst := make([]int, 0, 16)
		for range 5 {
			dst = b.Sample(r, 16, dst)
			out = append(out, dst...)
		}
		return out
	}
	a, a2, c := draw(1), draw(1), draw(2)
	if !slices.Equal(a, a2) {
		t.Error("the same seed sampled different slots")
	}
	if slices.Equal(a, c) {
		t.Error("different seeds sampled the same slots")
	}
	seen := map[int]bool{}
	for _, i := range a {
		if i < 0 || i >= b.Len() {
			t.Fatalf("sampled slot %d outside [0, %d)", i, b.Len())
		}
		seen[i] = true
	}
	if len(seen) < 20 {
		t.Errorf("80 draws over 30 slots hit only %d", len(seen))
	}
	r := rand.New(rand.NewPCG(3, 1))
	dst := make([]int, 0, 32)
	if al := testing.AllocsPerRun(100, func() { dst = b.Sample(r, 32, dst) }); al != 0 {
		t.Errorf("Sample with room: %v allocations", al)
	}
	func() {
		defer func() {
			if recover() == nil {
				t.Error("Sample of an empty buffer did not panic")
			}
		}()
		NewReplayBuffer(1, 1, 1).Sample(r, 1, nil)
	}()
}

func TestReplayBufferNoAlloc(t *testing.T) {
	const ports, agents = 64, 48
	b := NewReplayBuffer(100, ports, agents)
	feat, act, rew, next := transition(3, ports, agents)
	if a := testing.AllocsPerRun(500, func() { b.Add(feat, act, rew, next) }); a != 0 {
		t.Errorf("Add: %v allocations", a)
	}
}

func TestReplayBufferPanics(t *testing.T) {
	b := NewReplayBuffer(2, 1, 1)
	feat := make([]float64, gnn.NumFeatures)
	for name, f := range map[string]func(){
		"bad action":    func() { b.Add(feat, []int{gnn.NumActions}, []float64{0}, feat) },
		"short feature": func() { b.Add(feat[:1], []int{0}, []float64{0}, feat) },
		"empty slot":    func() { b.Features(0, feat) },
		"zero capacity": func() { NewReplayBuffer(0, 1, 1) },
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s: no panic", name)
				}
			}()
			f()
		}()
	}
}
