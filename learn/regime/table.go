package regime

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"slices"
	"strings"
)

// A Table is a teacher's labels: per regime (by Regime.String) a policy
// spec of a fixed configuration, and the base's for the rest.
type Table struct {
	// Base is the label of a phase without a regime, or of a regime
	// without a label: the configuration the teacher prefers.
	Base string `json:"base"`
	// Margin is the fraction by which a candidate had to beat the base on
	// a regime to become its label (Choose).
	Margin float64 `json:"margin"`
	// Labels are the regimes' labels, by regime name; a regime the base
	// labels is absent.
	Labels map[string]string `json:"labels"`
	// Ratios are the measurements Choose chose from: per regime, each
	// candidate's mean slowdown over the base's.
	Ratios map[string]map[string]float64 `json:"ratios,omitempty"`
}

// Label returns the label of regime r: its own, or the base.
func (t Table) Label(r Regime) string {
	if l, ok := t.Labels[r.String()]; ok {
		return l
	}
	return t.Base
}

// Choose returns the table of base with margin: each regime of ratios
// (per regime name, each candidate's mean slowdown over base's on the
// regime) is labelled by its candidate of least ratio if that ratio is
// below 1 - margin, and by base otherwise (ties to the candidate first in
// sorted order). A regime name that is not one of All is an error.
func Choose(base string, margin float64, ratios map[string]map[string]float64) (Table, error) {
	if !(margin >= 0) {
		return Table{}, fmt.Errorf("margin %v: want at least 0", margin)
	}
	t := Table{Base: base, Margin: margin, Labels: map[string]string{}, Ratios: ratios}
	for name, rs := range ratios {
		if _, err := Parse(name); err != nil {
			return Table{}, err
		}
		best, bestRatio := "", math.Inf(1)
		for _, c := range sortedKeys(rs) {
			if c != base && rs[c] < bestRatio {
				best, bestRatio = c, rs[c]
			}
		}
		if best != "" && bestRatio < 1-margin {
			t.Labels[name] = best
		}
	}
	return t, nil
}

// sortedKeys returns m's keys in order.
func sortedKeys[V any](m map[string]V) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	slices.Sort(ks)
	return ks
}

// evalJSON is the part of graphcc eval's JSON report ReadRatios reads.
type evalJSON struct {
	Reference string `json:"reference"`
	Scenarios []struct {
		Name     string `json:"name"`
		Policies []struct {
			Policy string   `json:"policy"`
			Ratio  *float64 `json:"mean_slowdown_vs_reference"`
		} `json:"policies"`
	} `json:"scenarios"`
}

// ReadRatios reads graphcc eval's JSON report at path, of ScenarioFile's
// scenarios with the base as --reference, and returns the base (the
// reference) and per regime name each policy's mean slowdown over the
// base's. Scenarios that are no regime's are skipped; a report without
// any regime's is an error.
func ReadRatios(path string) (base string, ratios map[string]map[string]float64, err error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return "", nil, err
	}
	var r evalJSON
	if err := json.Unmarshal(b, &r); err != nil {
		return "", nil, fmt.Errorf("%s: not an eval report: %w", path, err)
	}
	byScenario := map[string]string{}
	for _, g := range All() {
		byScenario[g.Scenario()] = g.String()
	}
	ratios = map[string]map[string]float64{}
	for _, sc := range r.Scenarios { // the reference's own ratio, 1, is left out
		name, ok := byScenario[sc.Name]
		if !ok {
			continue
		}
		ratios[name] = map[string]float64{}
		for _, p := range sc.Policies {
			if p.Policy == r.Reference {
				continue
			}
			if p.Ratio == nil {
				return "", nil, fmt.Errorf("%s: scenario %s, policy %s: no mean_slowdown_vs_reference", path, sc.Name, p.Policy)
			}
			ratios[name][p.Policy] = *p.Ratio
		}
	}
	if len(ratios) == 0 {
		return "", nil, fmt.Errorf("%s: no scenario of a regime (%s, ...)", path, All()[0].Scenario())
	}
	if r.Reference == "" {
		return "", nil, errors.New(path + ": no reference")
	}
	return r.Reference, ratios, nil
}

// fixedStep returns the sched step of a fixed configuration's label
// "static:KMIN,KMAX,PMAX+dcqcn:C1,...,C5" (or without the hosts'
// constants): "KMIN,KMAX,PMAX/C1,...,C5".
func fixedStep(label string) (string, error) {
	s, ok := strings.CutPrefix(label, "static:")
	if !ok || strings.Count(s, ",") < 2 {
		return "", fmt.Errorf("label %q: want static:KMIN_KB,KMAX_KB,PMAX[+dcqcn:...]", label)
	}
	ecn, hosts, withHosts := strings.Cut(s, "+dcqcn:")
	if withHosts {
		return ecn + "/" + hosts, nil
	}
	return ecn, nil
}
