package control

import (
	"testing"

	"graphcc/topo"
)

// TestFallback: the static settings after Limit late steps in a row, back
// at the first step on time; a limit of 0 never; Apply writes the chosen
// or the static settings of the agent's ports alone.
func TestFallback(t *testing.T) {
	tests := []struct {
		name   string
		limit  int
		late   []bool
		static []bool
	}{
		{"limit 3", 3, []bool{true, true, true, true, false, true}, []bool{false, false, true, true, false, false}},
		{"limit 1", 1, []bool{false, true, false}, []bool{false, true, false}},
		{"never", 0, []bool{true, true, true, true}, []bool{false, false, false, false}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fb := Fallback{Limit: tt.limit}
			was := false
			for i, late := range tt.late {
				static, changed := fb.Step(late)
				if static != tt.static[i] || changed != (static != was) || fb.Static() != static {
					t.Errorf("step %d (late %v): static %v, changed %v; want %v", i, late, static, changed, tt.static[i])
				}
				was = static
			}
		})
	}
	chosen, static := []ECN{{KMin: 1}, {KMin: 2}, {KMin: 3}}, []ECN{{KMin: 10}, {KMin: 20}, {KMin: 30}}
	ecn := make([]ECN, 3)
	fb := Fallback{Limit: 1}
	fb.Apply(ecn, chosen, static, []topo.PortID{0, 2})
	if ecn[0] != chosen[0] || ecn[1] != (ECN{}) || ecn[2] != chosen[2] {
		t.Errorf("on time: %v", ecn)
	}
	fb.Step(true)
	fb.Apply(ecn, chosen, static, []topo.PortID{1})
	if ecn[1] != static[1] || ecn[0] != chosen[0] {
		t.Errorf("static: %v", ecn)
	}
	if CheckMissLimit(-1) == nil || CheckMissLimit(0) != nil || CheckMissLimit(DefaultMissLimit) != nil {
		t.Error("CheckMissLimit: want only a negative limit refused")
	}
}
