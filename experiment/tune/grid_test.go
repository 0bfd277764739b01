package tune

import (
	"strings"
	"testing"

	"graphcc/gnn"
)

func TestParseGrid(t *testing.T) {
	for _, tc := range []struct {
		v    string
		want []Setting
		err  string
	}{
		{"paper", PaperGrid(), ""},
		{"extended", ExtendedGrid(), ""},
		{"actions:rpc", ActionGrid(gnn.ActionsRPC), ""},
		{"actions:paper", PaperGrid(), ""},
		{"actions:big", nil, "--grid actions:big: "},
		{"fine", nil, "--grid fine: want paper, extended or actions:SET (SET paper, extended or rpc)"},
	} {
		got, err := ParseGrid("--grid", tc.v)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("ParseGrid(%q): %v, want %q", tc.v, err, tc.err)
			}
			continue
		}
		if err != nil || len(got) != len(tc.want) || got[len(got)-1] != tc.want[len(tc.want)-1] {
			t.Errorf("ParseGrid(%q) = %d settings, %v; want %d", tc.v, len(got), err, len(tc.want))
		}
	}
}

func TestRoundString(t *testing.T) {
	r := Round{Name: "refine 1", Settings: 12, Best: "static:2,32,0.01", Score: 1.23456}
	if got, want := r.String(), "refine 1, 12 settings run; best static:2,32,0.01, mean slowdown 1.235"; got != want {
		t.Errorf("String() = %q, want %q", got, want)
	}
}
