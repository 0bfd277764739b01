package tune

import (
	"fmt"
	"strings"

	"graphcc/gnn"
	"graphcc/policy"
)

// Setting is one fixed switch ECN setting as policy.Fixed takes it: the
// thresholds in KB (1000 B) of a 25 Gbps port, scaled by each switch
// port's rate, and the marking probability at kmax.
type Setting struct {
	KMinKB float64 `json:"kmin_kb"`
	KMaxKB float64 `json:"kmax_kb"`
	PMax   float64 `json:"pmax"`
}

// Spec returns the setting's policy spec, static:KMIN_KB,KMAX_KB,PMAX in
// policy.Canonical's form.
func (s Setting) Spec() string { return policy.Canonical("static:" + s.args()) }

// valid reports whether s is a setting the simulator takes: 0 <= kmin <=
// kmax and pmax in [0, 1] (pmax 0 marks every packet above kmax and none
// below: a step at kmax).
func (s Setting) valid() bool {
	return s.KMinKB >= 0 && s.KMaxKB >= s.KMinKB && s.PMax >= 0 && s.PMax <= 1
}

// PaperGrid returns the paper's 120 fixed settings, gnn's action table in
// action order: kmin {2, 4, 8, 16, 32} KB, kmax {16, …, 256} KB with kmin
// <= kmax, pmax {0.01, 0.25, 0.5, 0.75, 1}.
func PaperGrid() []Setting { return ActionGrid(gnn.ActionsPaper) }

// ActionGrid returns the 120 settings of action set s in action order:
// the settings a model of that table plays exactly, so a search on it
// finds the best label an imitation teacher can give such a model.
func ActionGrid(s gnn.ActionSet) []Setting {
	out := make([]Setting, gnn.NumActions)
	for a := range out {
		kmin, kmax, pmax := s.Levels(a)
		out[a] = Setting{float64(kmin), float64(kmax), pmax}
	}
	return out
}

// ExtendedGrid returns the paper's grid (first, in its order) and then
// the settings of the wider levels that it lacks: kmin {0, 1, 2, 4, 8,
// 16, 32} KB, kmax {2, 4, 8, 16, …, 256, 512} KB with kmin <= kmax, and
// the paper's pmax levels (265 settings in all).
func ExtendedGrid() []Setting {
	out := PaperGrid()
	seen := map[Setting]bool{}
	for _, s := range out {
		seen[s] = true
	}
	kmins := []float64{0, 1, 2, 4, 8, 16, 32}
	kmaxs := []float64{2, 4, 8, 16, 32, 64, 128, 256, 512}
	for _, kmin := range kmins {
		for _, kmax := range kmaxs {
			if kmax < kmin {
				continue
			}
			for _, p := range gnn.ActionPMax {
				s := Setting{kmin, kmax, p}
				if !seen[s] {
					seen[s] = true
					out = append(out, s)
				}
			}
		}
	}
	return out
}

// ParseGrid returns the coarse grid named v: paper (PaperGrid), extended
// (ExtendedGrid) or actions:SET, the 120 settings of gnn's action set SET
// (ActionGrid). name (a flag, "--grid") heads its errors.
func ParseGrid(name, v string) ([]Setting, error) {
	switch v {
	case "paper":
		return PaperGrid(), nil
	case "extended":
		return ExtendedGrid(), nil
	}
	if set, ok := strings.CutPrefix(v, "actions:"); ok {
		s, err := gnn.ParseActionSet(set)
		if err != nil {
			return nil, fmt.Errorf("%s %s: %w", name, v, err)
		}
		return ActionGrid(s), nil
	}
	return nil, fmt.Errorf("%s %s: want paper, extended or actions:SET (SET paper, extended or rpc)", name, v)
}
