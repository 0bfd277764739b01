package learn

import (
	"graphcc/internal/testfabric"
	"slices"
	"testing"

	"graphcc/gnn"
	"graphcc/topo"
)

// TestVariantRemap checks the transitions of an episode on a failed fabric
// as the trainer stores them: on the reference fabric's ports and agents,
// each row and action where its port puts it (ACC's agents agree: bound by
// port name), the failed ports' agents with NoAction, reward 0 and zero
// features.
func TestVariantRemap(t *testing.T) {
	base, failed := testfabric.FailedClos(t)
	v, err := variantOf(failed, base)
	if err != nil || v == nil || v.key != "leaf0-spine0" {
		t.Fatalf("variant %+v, %v; want the fabric without leaf0-spine0", v, err)
	}
	if same, err := variantOf(base, base); same != nil || err != nil {
		t.Errorf("the reference is a variant of itself: %+v, %v", same, err)
	}
	acc := gnn.NewACC(base, gnn.FeatureConfig{}, nnNewRand(1))
	on, err := gnn.NewACCFrom(acc.Nets, acc.Ports(), failed, gnn.FeatureConfig{})
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range []int{gnn.ACCNumFeatures, gnn.NumFeatures} {
		prev := make([]float64, len(failed.Ports)*w)
		next := make([]float64, len(failed.Ports)*w)
		for p := range failed.Ports {
			for k := range w {
				prev[p*w+k] = float64(1000*p + k + 1)
				next[p*w+k] = -float64(1000*p + k + 1)
			}
		}
		actions := make([]int, len(failed.Agents()))
		rewards := make([]float64, len(failed.Agents()))
		for i := range actions {
			actions[i], rewards[i] = i%gnn.NumActions, float64(i)+0.5
		}
		st := v.remap(w, len(base.Ports), len(base.Agents()), prev, actions, rewards, next)
		if st.fabric != v.key {
			t.Errorf("transition of fabric %q, want %q", st.fabric, v.key)
		}
		byName := map[string]int{}
		for i, p := range on.Agents() {
			byName[failed.PortName(p)] = i
		}
		for j, rp := range base.Agents() {
			row := st.prev[int(rp)*w : (int(rp)+1)*w]
			i, acts := byName[base.PortName(rp)]
			if !acts {
				if st.actions[j] != NoAction || st.rewards[j] != 0 || slices.ContainsFunc(row, func(x float64) bool { return x != 0 }) {
					t.Errorf("idle agent of %s: action %d, reward %v, features %v", base.PortName(rp), st.actions[j], st.rewards[j], row)
				}
				continue
			}
			p := int(on.Agents()[i])
			if st.actions[j] != actions[i] || st.rewards[j] != rewards[i] ||
				!slices.Equal(row, prev[p*w:(p+1)*w]) || !slices.Equal(st.next[int(rp)*w:(int(rp)+1)*w], next[p*w:(p+1)*w]) {
				t.Errorf("agent of %s: action %d, reward %v, want those of port %d", base.PortName(rp), st.actions[j], st.rewards[j], p)
			}
		}
		// Host ports keep their rows too.
		for p, rp := range v.port {
			if !slices.Equal(st.prev[int(rp)*w:(int(rp)+1)*w], prev[p*w:(p+1)*w]) {
				t.Errorf("port %s: row not at the reference's port %d", failed.PortName(topo.PortID(p)), rp)
			}
		}
	}
}

// TestVariantRefused checks that only the reference with links removed is
// a variant of it.
func TestVariantRefused(t *testing.T) {
	base, _ := testfabric.FailedClos(t)
	c := topo.DefaultClos()
	c.Spines = 3
	wider, err := topo.Clos(c)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := variantOf(wider, base); err == nil {
		t.Error("a fabric with links the reference lacks is a variant of it")
	}
	s := &variantSet{ref: base}
	if err := s.sync([]string{"", "leaf0-spine0", "leaf9-spine0"}); err == nil {
		t.Error("a tag naming an unknown link was synced")
	}
}

// TestMPNNScratchOnVariant checks the learner's GraphCC pass on a
// transition of a failed fabric: laid out on the reference, its Q values
// and gradient are the model's on the failed fabric itself.
func TestMPNNScratchOnVariant(t *testing.T) {
	base, failed := testfabric.FailedClos(t)
	vars := &variantSet{ref: base}
	if err := vars.sync([]string{"", "leaf0-spine0"}); err != nil {
		t.Fatal(err)
	}
	v := vars.list[1]
	r := nnNewRand(2)
	m := gnn.NewModel(r)
	net := &mpnnNet{m: m, vars: vars}
	s := net.newScratch()

	x := make([]float64, len(failed.Ports)*gnn.NumFeatures)
	for i := range x {
		x[i] = r.Float64()
	}
	dq := make([]float64, len(failed.Agents())*gnn.NumActions)
	for i := range dq {
		dq[i] = r.NormFloat64()
	}
	ws := gnn.NewWorkspace(m, failed.Graph())
	q := make([]float64, len(dq))
	m.Forward(ws, x, q)
	grad := make([]float64, len(m.Params))
	m.Backward(ws, dq, grad)

	st := v.remap(gnn.NumFeatures, len(base.Ports), len(base.Agents()), x, make([]int, len(failed.Agents())), make([]float64, len(failed.Agents())), x)
	refQ := make([]float64, len(base.Agents())*gnn.NumActions)
	refDQ := make([]float64, len(refQ))
	for i, j := range v.agent {
		copy(refDQ[int(j)*gnn.NumActions:], dq[i*gnn.NumActions:(i+1)*gnn.NumActions])
	}
	// Twice, to reuse the workspace and the gathered buffers.
	for range 2 {
		s.forward(1, st.prev, refQ)
		got := make([]float64, len(m.Params))
		s.backward(1, refDQ, got)
		for i, j := range v.agent {
			if !slices.Equal(refQ[int(j)*gnn.NumActions:(int(j)+1)*gnn.NumActions], q[i*gnn.NumActions:(i+1)*gnn.NumActions]) {
				t.Fatalf("agent %s: Q values differ from the failed fabric's", failed.PortName(failed.Agents()[i]))
			}
		}
		if !slices.Equal(got, grad) {
			t.Fatal("gradient differs from the failed fabric's")
		}
	}
	// The reference's own transitions pass over the reference's graph.
	xr := make([]float64, len(base.Ports)*gnn.NumFeatures)
	copy(xr, st.prev)
	want := make([]float64, len(refQ))
	m.Forward(gnn.NewWorkspace(m, base.Graph()), xr, want)
	s.forward(0, xr, refQ)
	if !slices.Equal(refQ, want) {
		t.Error("the reference's Q values differ")
	}
}
