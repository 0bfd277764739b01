package control

import (
	"cmp"
	"slices"

	"graphcc/topo"
)

// RefRate is the port rate at which ECN thresholds and DCQCN's rate steps are
// quoted: settings are per 25 Gbps of port rate, and scale with it.
const RefRate = 25 * topo.Gbps

// SettingUse is one ECN setting, its thresholds per 25 Gbps of port rate
// (RefRate), and the agent port-steps a policy held it.
type SettingUse struct {
	KMin      int64   `json:"kmin_bytes_per_25g"`
	KMax      int64   `json:"kmax_bytes_per_25g"`
	PMax      float64 `json:"pmax"`
	PortSteps int64   `json:"port_steps"`
}

// SettingCounter counts the port-steps a control policy held each ECN
// setting, its thresholds taken per 25 Gbps of port rate; the simulator
// and the testbed's control loop fill one each step. The zero value is
// ready to use.
type SettingCounter struct{ use []SettingUse }

// Add counts one port-step at setting e on a port of rate bps.
func (c *SettingCounter) Add(e ECN, rate int64) {
	c.add(SettingUse{KMin: e.KMin * RefRate / rate, KMax: e.KMax * RefRate / rate, PMax: e.PMax, PortSteps: 1})
}

// add counts u's port-steps at u's setting.
func (c *SettingCounter) add(u SettingUse) {
	for i := range c.use {
		if v := &c.use[i]; v.KMin == u.KMin && v.KMax == u.KMax && v.PMax == u.PMax {
			v.PortSteps += u.PortSteps
			return
		}
	}
	c.use = append(c.use, u)
}

// Uses returns the settings counted, most used first, or nil if none.
func (c *SettingCounter) Uses() []SettingUse {
	if len(c.use) == 0 {
		return nil
	}
	out := slices.Clone(c.use)
	sortSettings(out)
	return out
}

// TopSettingShare returns the number of distinct settings in use and the
// share of port-steps at the most used one, or 0, 0 if there are none.
func TopSettingShare(use []SettingUse) (int, float64) {
	var total, top int64
	for _, u := range use {
		total += u.PortSteps
		top = max(top, u.PortSteps)
	}
	if total == 0 {
		return 0, 0
	}
	return len(use), float64(top) / float64(total)
}

// MergeSettings adds b's port-steps into a, setting by setting, and
// returns them most used first (ties by kmin, kmax, pmax).
func MergeSettings(a, b []SettingUse) []SettingUse {
	var c SettingCounter
	for _, u := range slices.Concat(a, b) {
		c.add(u)
	}
	return c.Uses()
}

// sortSettings orders use most used first, then by kmin, kmax and pmax.
func sortSettings(use []SettingUse) {
	slices.SortFunc(use, func(x, y SettingUse) int {
		return cmp.Or(cmp.Compare(y.PortSteps, x.PortSteps), cmp.Compare(x.KMin, y.KMin),
			cmp.Compare(x.KMax, y.KMax), cmp.Compare(x.PMax, y.PMax))
	})
}
