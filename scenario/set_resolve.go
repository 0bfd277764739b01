package scenario

import (
	"fmt"
	"strings"
)

// Resolve returns the scenarios spec names: all, the built-in suite's
// (Names) and then the file's, or comma-separated names, each trimmed and
// looked up (Lookup), a range of a family's draws ("family:1-3")
// standing for each of them (ExpandNames). A name given twice is refused.
func (s Set) Resolve(spec string) ([]Scenario, error) {
	names := strings.Split(spec, ",")
	if strings.TrimSpace(spec) == "all" {
		names = append(Names(), s.Names()...)
	}
	names, err := ExpandNames(names)
	if err != nil {
		return nil, err
	}
	var out []Scenario
	seen := map[string]bool{}
	for _, n := range names {
		n = strings.TrimSpace(n)
		sc, err := s.Lookup(n)
		if err != nil {
			return nil, err
		}
		if seen[n] {
			return nil, fmt.Errorf("%s given twice", n)
		}
		seen[n] = true
		out = append(out, sc)
	}
	return out, nil
}
