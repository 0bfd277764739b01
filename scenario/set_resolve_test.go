package scenario

import (
	"slices"
	"strings"
	"testing"
)

func TestSetResolve(t *testing.T) {
	set := Set{Path: "s.yaml", File: []Scenario{{Name: "quiet"}, {Name: "quiet2"}}}
	d := Default().Name
	for _, tc := range []struct {
		spec string
		want []string
		err  string
	}{
		{"quiet", []string{"quiet"}, ""},
		{" quiet2 , " + d, []string{"quiet2", d}, ""},
		{"all", append(Names(), "quiet", "quiet2"), ""},
		{" all ", append(Names(), "quiet", "quiet2"), ""},
		{"quiet,quiet", nil, "quiet given twice"},
		{"quiet,nope", nil, `unknown scenario "nope"`},
		{"all,quiet", nil, `unknown scenario "all"`},
	} {
		scs, err := set.Resolve(tc.spec)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("Resolve(%q): %v, want %q", tc.spec, err, tc.err)
			}
			continue
		}
		var got []string
		for _, sc := range scs {
			got = append(got, sc.Name)
		}
		if err != nil || !slices.Equal(got, tc.want) {
			t.Errorf("Resolve(%q) = %v, %v; want %v", tc.spec, got, err, tc.want)
		}
	}
}
