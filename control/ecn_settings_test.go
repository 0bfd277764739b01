package control

import (
	"math"
	"strings"
	"testing"
)

func TestECNSettings(t *testing.T) {
	if s, a := ECNSettingsOf(Alibaba(RefRate)), Alibaba(RefRate); s.KMinKB*KB != float64(a.KMin) || s.KMaxKB*KB != float64(a.KMax) || s.PMax != a.PMax {
		t.Errorf("ECNSettingsOf(%+v) = %+v", a, s)
	}
	for _, tc := range []struct {
		s    ECNSettings
		want ECN
		err  string
	}{
		{ECNSettings{2, 32, 0.01}, ECN{KMin: 2000, KMax: 32000, PMax: 0.01}, ""},
		{ECNSettings{0.0015, 1, 1}, ECN{KMin: 2, KMax: 1000, PMax: 1}, ""},
		{ECNSettings{-1, 32, 0.01}, ECN{}, "--kmin-kb -1: must be a number of KB in [0, 1e9]"},
		{ECNSettings{2, math.NaN(), 0.01}, ECN{}, "--kmax-kb NaN: must be a number of KB in [0, 1e9]"},
		{ECNSettings{2, 2e9, 0.01}, ECN{}, "--kmax-kb 2e+09: must be a number of KB in [0, 1e9]"},
		{ECNSettings{32, 2, 0.01}, ECN{}, "--kmin-kb 32 --kmax-kb 2 --pmax 0.01: "},
		{ECNSettings{2, 32, 1.5}, ECN{}, "--kmin-kb 2 --kmax-kb 32 --pmax 1.5: "},
	} {
		got, err := tc.s.ECN("--")
		if tc.err == "" && (err != nil || got != tc.want) || tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)) {
			t.Errorf("%+v.ECN() = %+v, %v; want %+v, %q", tc.s, got, err, tc.want, tc.err)
		}
	}
}
