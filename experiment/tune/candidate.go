package tune

import (
	"math"
	"slices"
	"strconv"

	"graphcc/control"
	"graphcc/policy"
	"graphcc/replay"
	"graphcc/topo"
)

// Candidate is one configuration Search runs: a fixed switch ECN setting,
// for every switch port or by port role, and the hosts' DCQCN constants if
// they are tuned.
type Candidate struct {
	// Setting is the setting of every switch port, or with ToSwitch of
	// the switch ports facing a host.
	Setting
	// ToSwitch, if set, is the setting of the switch ports facing another
	// switch (policy.Edge).
	ToSwitch *Setting `json:"to_switch,omitempty"`
	// DCQCN, if set, are the hosts' DCQCN constants, which replace the
	// hardware's (nil: the hardware's, Config.Params: HPCC's preset
	// by default).
	DCQCN *DCQCNSetting `json:"dcqcn,omitempty"`
}

// Spec returns c's policy spec in policy.Canonical's form: static:…, or
// edge:…:… with a setting per role, followed by policy.HostsMark and the
// hosts' constants if c has them.
func (c Candidate) Spec() string {
	spec := c.Setting.Spec()
	if c.ToSwitch != nil {
		spec = policy.Canonical("edge:" + c.Setting.args() + ":" + c.ToSwitch.args())
	}
	if c.DCQCN != nil {
		spec += policy.HostsMark + policy.FormatHostParams(c.DCQCN.Params())
	}
	return spec
}

// normalized returns c with a ToSwitch equal to its Setting and DCQCN
// constants equal to hosts, the hardware's, left out: one configuration,
// one spec.
func (c Candidate) normalized(hosts DCQCNSetting) Candidate {
	if c.ToSwitch != nil && *c.ToSwitch == c.Setting {
		c.ToSwitch = nil
	}
	if c.DCQCN != nil && c.DCQCN.Params() == hosts.Params() {
		c.DCQCN = nil
	}
	return c
}

// valid reports whether the simulator takes c.
func (c Candidate) valid() bool {
	if !c.Setting.valid() || c.ToSwitch != nil && !c.ToSwitch.valid() {
		return false
	}
	return c.DCQCN == nil || c.DCQCN.Params().Validate() == nil
}

// switchSetting is the setting of c's ports facing a switch.
func (c Candidate) switchSetting() Setting {
	if c.ToSwitch != nil {
		return *c.ToSwitch
	}
	return c.Setting
}

// oneSetting reports whether c is one ECN setting for all ports with the
// hardware's hosts' constants: what the paper's agents choose from.
func (c Candidate) oneSetting() bool { return c.ToSwitch == nil && c.DCQCN == nil }

// args writes s as KMIN_KB,KMAX_KB,PMAX.
func (s Setting) args() string {
	f := func(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }
	return f(s.KMinKB) + "," + f(s.KMaxKB) + "," + f(s.PMax)
}

// DCQCNSetting are the hosts' DCQCN constants a search tunes, in the units
// of a NIC's configuration (control.HostParams; the ranges a ConnectX NIC
// takes): the timers in µs, the increase steps of a 25 Gbps NIC in Mbps.
type DCQCNSetting struct {
	IncreaseTimerUS  float64 `json:"rate_increase_timer_us"`
	AlphaPeriodUS    float64 `json:"alpha_period_us"`
	DecreasePeriodUS float64 `json:"decrease_period_us"`
	AIMbps           float64 `json:"ai_mbps"`
	HAIMbps          float64 `json:"hai_mbps"`
}

// DefaultDCQCNSetting is HPCC's preset, control.DefaultHostParams: 300,
// 1 and 4 µs, 5 and 50 Mbps.
func DefaultDCQCNSetting() DCQCNSetting { return dcqcnSettingOf(control.DefaultHostParams()) }

// HardwareDCQCN returns the hosts' DCQCN constants of the simulated
// hardware p (p.DCQCN, for a 25 Gbps NIC; the zero Params read as
// replay.DefaultParams, as the simulator reads it): the constants a
// search on p starts its DCQCN rounds from, and those its configurations
// without their own (Candidate.DCQCN nil) run with.
func HardwareDCQCN(p replay.Params) DCQCNSetting {
	if p.Payload == 0 {
		p = replay.DefaultParams()
	}
	return dcqcnSettingOf(control.HostParamsAt(p.DCQCN, control.RefRate))
}

// dcqcnSettingOf returns h in a NIC configuration's units.
func dcqcnSettingOf(h control.HostParams) DCQCNSetting {
	us := func(v int64) float64 { return float64(v) / float64(topo.Microsecond) }
	mbps := func(v int64) float64 { return float64(v) / float64(topo.Mbps) }
	return DCQCNSetting{us(h.IncreaseInterval), us(h.AlphaInterval), us(h.DecreaseInterval), mbps(h.AI), mbps(h.HAI)}
}

// Params returns d as the control package's constants, in ps and bps.
func (d DCQCNSetting) Params() control.HostParams {
	us := func(v float64) int64 { return int64(math.Round(v * float64(topo.Microsecond))) }
	mbps := func(v float64) int64 { return int64(math.Round(v * float64(topo.Mbps))) }
	return control.HostParams{
		IncreaseInterval: us(d.IncreaseTimerUS), AlphaInterval: us(d.AlphaPeriodUS), DecreaseInterval: us(d.DecreasePeriodUS),
		AI: mbps(d.AIMbps), HAI: mbps(d.HAIMbps),
	}
}

// DCQCNLadder is the levels Search tries of one DCQCN constant.
type DCQCNLadder struct {
	Name   string // "timer", "alpha", "decrease", "ai", "hai"
	Levels []float64
	// set returns d with the constant at v.
	set func(d DCQCNSetting, v float64) DCQCNSetting
}

// DCQCNLadders returns the levels of each DCQCN constant, in the order
// Search's rounds take them: the rate-increase timer (15 to 600 µs; HPCC's
// 300, the DCQCN paper's 55), the alpha period (1 to 55 µs), the decrease
// period (2 to 50 µs), the additive increase (2.5 to 80 Mbps) and the
// hyper increase (25 to 400 Mbps), each with the preset's level.
func DCQCNLadders() []DCQCNLadder {
	return []DCQCNLadder{
		{"timer", []float64{15, 30, 55, 100, 150, 300, 600}, func(d DCQCNSetting, v float64) DCQCNSetting { d.IncreaseTimerUS = v; return d }},
		{"alpha", []float64{1, 2, 4, 8, 16, 55}, func(d DCQCNSetting, v float64) DCQCNSetting { d.AlphaPeriodUS = v; return d }},
		{"decrease", []float64{2, 4, 8, 16, 50}, func(d DCQCNSetting, v float64) DCQCNSetting { d.DecreasePeriodUS = v; return d }},
		{"ai", []float64{2.5, 5, 10, 20, 40, 80}, func(d DCQCNSetting, v float64) DCQCNSetting { d.AIMbps = v; return d }},
		{"hai", []float64{25, 50, 100, 200, 400}, func(d DCQCNSetting, v float64) DCQCNSetting { d.HAIMbps = v; return d }},
	}
}

// dcqcnNeighbours returns each leader with l's constant at each of its
// levels, the others at the leader's constants (the hardware's if it has
// none), valid, in leader order.
func (t *tuner) dcqcnNeighbours(l DCQCNLadder) []Candidate {
	var out []Candidate
	hosts := HardwareDCQCN(t.c.Params)
	for _, lead := range t.leaders() {
		d := hosts
		if lead.DCQCN != nil {
			d = *lead.DCQCN
		}
		for _, v := range l.Levels {
			c := lead.Candidate
			nd := l.set(d, v)
			c.DCQCN = &nd
			out = append(out, c.normalized(hosts))
		}
	}
	return slices.DeleteFunc(out, func(c Candidate) bool { return !c.valid() })
}

// ecnNeighbours returns the configurations one step of factor step away
// from each leader in the kmin, kmax or pmax of its Setting (of every
// port, or of the ports facing a host), valid and in leader order
// (configurations already run are skipped by round).
func (t *tuner) ecnNeighbours(step float64) []Candidate {
	var out []Candidate
	hosts := HardwareDCQCN(t.c.Params)
	for _, lead := range t.leaders() {
		for _, s := range settingNeighbours(lead.Setting, step) {
			c := lead.Candidate
			c.Setting = s
			out = append(out, c.normalized(hosts))
		}
	}
	return slices.DeleteFunc(out, func(c Candidate) bool { return !c.valid() })
}

// roleNeighbours returns, for each leader, the neighbours of its setting
// of the ports facing a host with the ports facing a switch kept, then
// the other way round.
func (t *tuner) roleNeighbours(step float64) []Candidate {
	var out []Candidate
	hosts := HardwareDCQCN(t.c.Params)
	for _, lead := range t.leaders() {
		sw := lead.switchSetting()
		for _, s := range settingNeighbours(lead.Setting, step) {
			c := lead.Candidate
			c.Setting, c.ToSwitch = s, &sw
			out = append(out, c.normalized(hosts))
		}
		for _, s := range settingNeighbours(sw, step) {
			c := lead.Candidate
			c.ToSwitch = &s
			out = append(out, c.normalized(hosts))
		}
	}
	return slices.DeleteFunc(out, func(c Candidate) bool { return !c.valid() })
}

// settingNeighbours returns the settings one step of factor step away
// from s in kmin, kmax or pmax (a step at kmax, pmax 0, stays one).
func settingNeighbours(s Setting, step float64) []Setting {
	var out []Setting
	for _, kmin := range levelsAround(s.KMinKB, step) {
		out = append(out, Setting{kmin, s.KMaxKB, s.PMax})
	}
	for _, kmax := range levelsAround(s.KMaxKB, step) {
		out = append(out, Setting{s.KMinKB, kmax, s.PMax})
	}
	if s.PMax > 0 {
		for _, p := range levelsAround(s.PMax, step) {
			out = append(out, Setting{s.KMinKB, s.KMaxKB, min(p, 1)})
		}
	}
	return out
}

// levelsAround returns v divided and multiplied by step, to three
// significant digits; for 0, the level 1.
func levelsAround(v, step float64) []float64 {
	if v == 0 {
		return []float64{1}
	}
	return []float64{round3(v / step), round3(v * step)}
}

// round3 rounds v to three significant digits.
func round3(v float64) float64 {
	if v == 0 {
		return 0
	}
	p := math.Pow(10, 2-math.Floor(math.Log10(math.Abs(v))))
	return math.Round(v*p) / p
}
