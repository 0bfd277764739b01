package policy

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"

	"graphcc/control"
	"graphcc/replay"
)

// Hardware returns the canonical form of the simulated hardware and the
// control interval a tune result's scores were made with, as its
// hardware field records it (zero values as the simulator reads them:
// replay.DefaultParams, control.DefaultInterval): two results with the
// same Hardware simulated the same fabric behaviour.
func Hardware(p replay.Params, interval int64) string {
	if p == (replay.Params{}) {
		p = replay.DefaultParams()
	}
	if interval == 0 {
		interval = control.DefaultInterval
	}
	b, err := json.Marshal(struct {
		Params   replay.Params `json:"params"`
		Interval int64         `json:"interval_ps"`
	}{p, interval})
	if err != nil {
		return err.Error()
	}
	return string(b)
}

// HardwareDiff returns, for two hardware of Hardware's form, each field
// whose value differs, as "params.DCQCN.IncreaseInterval 55000000, here
// 300000000", in name order (fields of the hosts' DCQCN constants start
// "params.DCQCN."); a form it cannot read differs as a whole.
func HardwareDiff(tuned, here string) []string {
	if tuned == here {
		return nil
	}
	a, b := map[string]string{}, map[string]string{}
	if !flattenJSON(tuned, a) || !flattenJSON(here, b) {
		return []string{fmt.Sprintf("%s, here %s", tuned, here)}
	}
	var out []string
	for _, k := range slices.Sorted(maps.Keys(a)) {
		if a[k] != b[k] {
			out = append(out, fmt.Sprintf("%s %s, here %s", k, a[k], orNone(b[k])))
		}
	}
	for _, k := range slices.Sorted(maps.Keys(b)) {
		if _, ok := a[k]; !ok {
			out = append(out, fmt.Sprintf("%s none, here %s", k, b[k]))
		}
	}
	return out
}

// flattenJSON sets in out every leaf of the JSON object s under its
// dotted path, its value as JSON; it reports whether s is one.
func flattenJSON(s string, out map[string]string) bool {
	dec := json.NewDecoder(strings.NewReader(s))
	dec.UseNumber() // numbers as written
	var v map[string]any
	if err := dec.Decode(&v); err != nil {
		return false
	}
	var walk func(prefix string, v any)
	walk = func(prefix string, v any) {
		if m, ok := v.(map[string]any); ok {
			for k, x := range m {
				walk(prefix+k+".", x)
			}
			return
		}
		b, _ := json.Marshal(v)
		out[prefix[:len(prefix)-1]] = string(b)
	}
	walk("", v)
	return true
}

// orNone is s, or "none" for "" (a field one side lacks).
func orNone(s string) string {
	if s == "" {
		return "none"
	}
	return s
}
