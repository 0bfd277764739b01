package gnn

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"graphcc/control"
	"graphcc/dcqcn"
)

// HostProfilesID identifies a host action table of profiles: a list of
// DCQCN constants, action a the a-th, which the model file records in
// full (host_profiles) beside this id (host_table).
const HostProfilesID = "graphcc-dcqcn-profiles/v1"

// MaxHostProfiles is the most profiles a table holds: replay buffers store
// host actions as uint8.
const MaxHostProfiles = 255

// HostTable is a host action table: the DCQCN constants a host agent
// picks from every interval. The zero value is the grid (HostAction, id
// HostTableID), what every model without recorded profiles runs;
// NewHostTable makes a table of profiles (HostProfilesID). A HostTable is
// immutable and safe to share.
type HostTable struct {
	profiles []control.HostParams // nil: the grid
	logs     [][5]float64         // hostLogs of each profile
}

// NewHostTable returns the table whose action a is profiles[a]. Each
// profile must be valid (control.HostParams.Validate) and differ from the
// others, and there must be 1 to MaxHostProfiles of them. The profiles are
// copied.
func NewHostTable(profiles []control.HostParams) (HostTable, error) {
	if len(profiles) < 1 || len(profiles) > MaxHostProfiles {
		return HostTable{}, fmt.Errorf("host action table of %d profiles: want 1 to %d", len(profiles), MaxHostProfiles)
	}
	t := HostTable{profiles: make([]control.HostParams, len(profiles)), logs: make([][5]float64, len(profiles))}
	for a, h := range profiles {
		if err := h.Validate(); err != nil {
			return HostTable{}, fmt.Errorf("host profile %d: %w", a, err)
		}
		for b := range a {
			if profiles[b] == h {
				return HostTable{}, fmt.Errorf("host profile %d (%s) repeats profile %d", a, FormatHostProfile(h), b)
			}
		}
		t.profiles[a], t.logs[a] = h, hostLogs(h)
	}
	return t, nil
}

// IsGrid reports whether t is the grid (HostAction).
func (t HostTable) IsGrid() bool { return t.profiles == nil }

// Len returns the number of actions of t.
func (t HostTable) Len() int {
	if t.profiles == nil {
		return NumHostActions
	}
	return len(t.profiles)
}

// ID returns the identifier a model file records as host_table:
// HostTableID for the grid, HostProfilesID for profiles (which the file
// lists, host_profiles).
func (t HostTable) ID() string {
	if t.profiles == nil {
		return HostTableID
	}
	return HostProfilesID
}

// Profiles returns a copy of t's profiles, in action order; nil for the
// grid.
func (t HostTable) Profiles() []control.HostParams {
	if t.profiles == nil {
		return nil
	}
	return append([]control.HostParams(nil), t.profiles...)
}

// Action returns the constants of action a. It panics if a is not in
// [0, Len()). It does not allocate.
func (t HostTable) Action(a int) control.HostParams {
	if t.profiles == nil {
		return hostActionTable[a]
	}
	return t.profiles[a]
}

// Nearest returns the action whose constants are nearest to h, by the
// log-scale distance of NearestHostAction, ties to the lower action: every
// action is its own nearest. It does not allocate.
func (t HostTable) Nearest(h control.HostParams) int {
	if t.profiles == nil {
		return NearestHostAction(h)
	}
	return nearestLog(hostLogs(h), t.logs)
}

// nearestLog returns the index of the row of rows nearest to v (the least
// sum of squared differences), ties within tieEps to the lower index.
func nearestLog(v [5]float64, rows [][5]float64) int {
	best, bestD := 0, math.Inf(1)
	for a := range rows {
		var d float64
		for i := range v {
			d += (v[i] - rows[a][i]) * (v[i] - rows[a][i])
		}
		if d < bestD-tieEps {
			best, bestD = a, d
		}
	}
	return best
}

// Fingerprint names t for a checkpoint's settings: the id, and for
// profiles every profile (FormatHostProfile) separated by ";".
func (t HostTable) Fingerprint() string {
	if t.profiles == nil {
		return HostTableID
	}
	s := HostProfilesID
	for a, h := range t.profiles {
		sep := ";"
		if a == 0 {
			sep = " "
		}
		s += sep + FormatHostProfile(h)
	}
	return s
}

// FormatHostProfile writes h as the spec's +dcqcn: part does, in µs and
// Mbps: TIMER_US,ALPHA_US,DECREASE_US,AI_MBPS,HAI_MBPS.
func FormatHostProfile(h control.HostParams) string {
	v := hostProfileNumbers(h)
	s := make([]string, len(v))
	for i, x := range v {
		s[i] = strconv.FormatFloat(x, 'f', -1, 64)
	}
	return strings.Join(s, ",")
}

// hostProfileNumbers returns h's constants as the model file lists them:
// the three timers in µs, AI and HAI in Mbps at control.RefRate.
func hostProfileNumbers(h control.HostParams) [5]float64 {
	us, mbps := float64(dcqcn.Microsecond), float64(dcqcn.Mbps)
	return [5]float64{float64(h.IncreaseInterval) / us, float64(h.AlphaInterval) / us,
		float64(h.DecreaseInterval) / us, float64(h.AI) / mbps, float64(h.HAI) / mbps}
}

// hostProfileOf is hostProfileNumbers' inverse, rounding to the
// constants' units (ps, bps).
func hostProfileOf(v [5]float64) (control.HostParams, error) {
	for _, x := range v {
		if !(x >= 0 && x <= 1e9) {
			return control.HostParams{}, fmt.Errorf("%g is not in [0, 1e9]", x)
		}
	}
	us := func(x float64) int64 { return int64(math.Round(x * float64(dcqcn.Microsecond))) }
	mbps := func(x float64) int64 { return int64(math.Round(x * float64(dcqcn.Mbps))) }
	return control.HostParams{IncreaseInterval: us(v[0]), AlphaInterval: us(v[1]), DecreaseInterval: us(v[2]),
		AI: mbps(v[3]), HAI: mbps(v[4])}, nil
}

// hostTableOfHeader returns the host table a model file's header records:
// none without a host head, the grid on HostTableID, and on
// HostProfilesID the table of its host_profiles, as many as host_actions.
func hostTableOfHeader(h *Header) (HostTable, error) {
	switch {
	case h.HostTable == HostProfilesID:
		if len(h.HostProfiles) != h.HostActions {
			return HostTable{}, fmt.Errorf("host_profiles lists %d profiles for a host head of host_actions %d", len(h.HostProfiles), h.HostActions)
		}
		ps := make([]control.HostParams, len(h.HostProfiles))
		for a, v := range h.HostProfiles {
			p, err := hostProfileOf(v)
			if err != nil {
				return HostTable{}, fmt.Errorf("host_profiles[%d]: %w", a, err)
			}
			ps[a] = p
		}
		t, err := NewHostTable(ps)
		if err != nil {
			return HostTable{}, fmt.Errorf("host_profiles: %w", err)
		}
		return t, nil
	case len(h.HostProfiles) > 0:
		return HostTable{}, fmt.Errorf("host_profiles given with host_table %q: only %q lists them", h.HostTable, HostProfilesID)
	}
	return HostTable{}, nil
}
