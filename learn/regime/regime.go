package regime

import (
	"fmt"
	"slices"
	"strings"

	"graphcc/workload"
)

// Band is a load band of a regime.
type Band int

// The load bands: Low up to 45 % of the hosts' link rate, Mid above that
// up to 65 %, High above 65 %.
const (
	Low Band = iota
	Mid
	High
)

// bandNames are the bands' names, by Band.
var bandNames = [...]string{"low", "mid", "high"}

// String returns the band's name: "low", "mid" or "high".
func (b Band) String() string { return bandNames[b] }

// BandOf returns the band of load, a fraction of the link rate.
func BandOf(load float64) Band {
	switch {
	case load <= 0.45+1e-9:
		return Low
	case load <= 0.65+1e-9:
		return Mid
	}
	return High
}

// Workloads are the built-in workloads a regime may have, in the order of
// All.
var Workloads = []string{"fb_hadoop", "websearch", "alistorage", "googlerpc"}

// A Regime is a phase's kind: a built-in workload, a load band and
// whether it has incasts (a period and a fan-in).
type Regime struct {
	Workload string // one of Workloads
	Band     Band
	Incast   bool
}

// All returns the 24 regimes, by workload (Workloads' order), then band,
// then without incasts before with.
func All() []Regime {
	var out []Regime
	for _, w := range Workloads {
		for b := Low; b <= High; b++ {
			out = append(out, Regime{w, b, false}, Regime{w, b, true})
		}
	}
	return out
}

// Of returns the regime of phase p: false for a phase whose workload is
// not one of Workloads (a mixture of them, or a CDF file).
func Of(p workload.Phase) (Regime, bool) {
	if p.Workload == nil || !slices.Contains(Workloads, p.Workload.Name) {
		return Regime{}, false
	}
	return Regime{Workload: p.Workload.Name, Band: BandOf(p.Load), Incast: p.Incast.Period > 0 && p.Incast.FanIn > 0}, true
}

// String names r: "googlerpc-high-incast", "fb_hadoop-low".
func (r Regime) String() string {
	s := r.Workload + "-" + r.Band.String()
	if r.Incast {
		s += "-incast"
	}
	return s
}

// Parse returns the regime String names.
func Parse(name string) (Regime, error) {
	for _, r := range All() {
		if r.String() == name {
			return r, nil
		}
	}
	return Regime{}, fmt.Errorf("unknown regime %q", name)
}

// Load is the load at which ScenarioFile measures r: the top of its
// band, 45, 65 or 90 %, where a label that throttles the senders loses
// most (a label is chosen for the whole band, and the base is kept where
// a departure is not shown to win).
func (r Regime) Load() float64 { return [...]float64{0.45, 0.65, 0.9}[r.Band] }

// Scenario is the name of r's scenario in ScenarioFile: "regime-" and
// r's name, with the workload's underscore a dash.
func (r Regime) Scenario() string {
	return "regime-" + strings.ReplaceAll(r.String(), "_", "-")
}

// The incasts of a regime with incasts in ScenarioFile: the middle of
// scenario.Families' ranges, fan-in 12 of 64 KB each, every 1 ms.
const (
	incastFanIn = 12
	incastKB    = 64
)

// ScenarioFile returns a scenario file (docs/formats.md, "Scenario
// files") of one stationary scenario per regime of All, named by
// Regime.Scenario, each duration ms of r's workload at Regime.Load on
// the GraphCC Clos (base fb60), with fan-in 12 incasts of 64 KB every
// 1 ms if r has incasts and none otherwise.
func ScenarioFile(durationMs int) []byte {
	var b strings.Builder
	b.WriteString("# one stationary scenario per regime of graphcc/learn/regime, for measuring a teacher's labels\nscenarios:\n")
	for _, r := range All() {
		fmt.Fprintf(&b, "  - name: %s\n    base: fb60\n    workload: %s\n    load: %g\n    duration: %dms\n", r.Scenario(), r.Workload, r.Load(), durationMs)
		if r.Incast {
			fmt.Fprintf(&b, "    incast: {fanin: %d, size: %dKB, period: 1ms}\n", incastFanIn, incastKB)
		} else {
			b.WriteString("    incast: none\n")
		}
	}
	return []byte(b.String())
}
