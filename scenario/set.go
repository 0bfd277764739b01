package scenario

import (
	"fmt"
	"strings"
)

// A Set resolves scenario names: the scenarios of a scenario file first,
// then the built-in suite.
type Set struct {
	// Path is the scenario file's path ("" for none), for messages.
	Path string
	// File holds the file's scenarios, in its order.
	File []Scenario
	// Builtin resolves a name the file lacks; nil means ByName.
	Builtin func(name string) (Scenario, error)
}

// LoadSet reads the scenario file at path ("" for none) into a Set.
func LoadSet(path string) (Set, error) {
	s := Set{Path: path}
	if path == "" {
		return s, nil
	}
	var err error
	s.File, err = Load(path)
	return s, err
}

// Lookup returns the scenario named name: the file's, else the built-in
// one.
func (s Set) Lookup(name string) (Scenario, error) {
	for _, sc := range s.File {
		if sc.Name == name {
			return sc, nil
		}
	}
	builtin := s.Builtin
	if builtin == nil {
		builtin = ByName
	}
	sc, err := builtin(name)
	if err != nil && len(s.File) > 0 {
		err = fmt.Errorf("%w, nor one of %s (%s)", err, s.Path, strings.Join(s.Names(), ", "))
	}
	return sc, err
}

// Only returns the file's only scenario, or an error naming them if it
// holds another number ("PATH holds 2 scenarios (a, b)").
func (s Set) Only() (Scenario, error) {
	if len(s.File) != 1 {
		return Scenario{}, fmt.Errorf("%s holds %d scenarios (%s)", s.Path, len(s.File), strings.Join(s.Names(), ", "))
	}
	return s.File[0], nil
}

// Names lists the file's scenarios, in its order.
func (s Set) Names() []string {
	var out []string
	for _, sc := range s.File {
		out = append(out, sc.Name)
	}
	return out
}

// Pick returns the scenario named name (Lookup), or with name "" the
// file's only scenario (Only). Errors name the settings prefix plus
// scenario or scenario-file ("--": graphcc's flags).
func (s Set) Pick(name, prefix string) (Scenario, error) {
	if name == "" {
		sc, err := s.Only()
		if err != nil {
			return sc, fmt.Errorf("%sscenario-file %w: name one with %sscenario", prefix, err, prefix)
		}
		return sc, nil
	}
	sc, err := s.Lookup(name)
	if err != nil {
		return sc, fmt.Errorf("%sscenario: %w", prefix, err)
	}
	return sc, nil
}
