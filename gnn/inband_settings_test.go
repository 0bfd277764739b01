package gnn

import (
	"strings"
	"testing"

	"graphcc/control"
	"graphcc/topo"
)

func TestInBandSettings(t *testing.T) {
	for _, tc := range []struct {
		s    InBandSettings
		want InBandConfig
		err  string
	}{
		{DefaultInBandSettings(), InBandConfig{Deadline: DefaultRoundDeadline, Misses: control.DefaultMissLimit}, ""},
		{InBandSettings{"5us", "1.5us", 0, 0.5}, InBandConfig{Deadline: 5 * topo.Microsecond, Compute: 1500 * topo.Nanosecond}, ""},
		{InBandSettings{"0", "0", 3, 0}, InBandConfig{}, "--agent-deadline 0: must be positive"},
		{InBandSettings{"5us", "soon", 3, 0}, InBandConfig{}, "--agent-compute soon: bad delay"},
		{InBandSettings{"5us", "0", -1, 0}, InBandConfig{}, "--agent-misses -1: must not be negative (0 never reverts to the static settings)"},
		{InBandSettings{"5us", "0", 3, 1}, InBandConfig{}, "--agent-loss 1: must be in [0, 1)"},
		{InBandSettings{"5us", "0", 3, -0.1}, InBandConfig{}, "--agent-loss -0.1: must be in [0, 1)"},
	} {
		got, err := tc.s.Config("--agent-")
		if tc.err == "" && (err != nil || got != tc.want) || tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)) {
			t.Errorf("%+v.Config() = %+v, %v; want %+v, %q", tc.s, got, err, tc.want, tc.err)
		}
	}
}
