package experiment

import (
	"context"
	"slices"
	"strings"
	"testing"

	"graphcc/policy"
)

func TestPolicySpecsResolve(t *testing.T) {
	for _, tc := range []struct {
		s          PolicySpecs
		policies   []string
		ref        string
		yardsticks []string
		err        string
	}{
		{s: PolicySpecs{Policies: []string{"static,static:2,32,0.01"}}, policies: []string{"static", "static:2,32,0.01"}},
		{s: PolicySpecs{Policies: []string{"static", "static:2,32,0.01"}, Reference: "static:2,32,0.01"}, policies: []string{"static", "static:2,32,0.01"}, ref: "static:2,32,0.01"},
		{s: PolicySpecs{Policies: []string{"static:4,64,0.1"}, Yardsticks: "static:2,32,0.01"},
			policies: []string{"static:4,64,0.1", "static", "static:2,32,0.01"}, yardsticks: []string{"static", "static:2,32,0.01"}},
		{s: PolicySpecs{Policies: []string{"static"}, Yardsticks: "static:2,32,0.01,static"},
			policies: []string{"static", "static:2,32,0.01"}, yardsticks: []string{"static", "static:2,32,0.01"}},
		{s: PolicySpecs{Policies: []string{"static"}, Yardsticks: " "}, policies: []string{"static"}},
		{s: PolicySpecs{}, err: "--policies: no policy given"},
		{s: PolicySpecs{Policies: []string{"static", "static"}}, err: "--policies static: static given twice"},
		{s: PolicySpecs{Policies: []string{"bogus"}}, err: "--policies bogus: "},
		{s: PolicySpecs{Policies: []string{"static"}, Reference: "static:4,64,0.1"}, err: "--reference static:4,64,0.1: not one of --policies"},
		{s: PolicySpecs{Policies: []string{"static"}, Yardsticks: "static:2,32,0.01,static:2,32,0.01"}, err: "--yardsticks static:2,32,0.01,static:2,32,0.01: static:2,32,0.01 given twice"},
		{s: PolicySpecs{Policies: []string{"static"}, Yardsticks: "bogus"}, err: "--yardsticks bogus: "},
	} {
		var c Config
		err := tc.s.Resolve(context.Background(), policy.Env{}, &c, "--")
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%+v: %v, want %q", tc.s, err, tc.err)
			}
			continue
		}
		var names []string
		for _, p := range c.Policies {
			names = append(names, p.Name)
		}
		if err != nil || !slices.Equal(names, tc.policies) || c.Reference != tc.ref || !slices.Equal(c.Yardsticks, tc.yardsticks) {
			t.Errorf("%+v: policies %v, reference %q, yardsticks %v, %v; want %v, %q, %v", tc.s, names, c.Reference, c.Yardsticks, err, tc.policies, tc.ref, tc.yardsticks)
		}
	}
}

func TestCheckSeeds(t *testing.T) {
	for _, tc := range []struct {
		seeds []uint64
		err   string
	}{
		{[]uint64{1001, 1002}, ""},
		{nil, "--seeds: no seed given"},
		{[]uint64{1001, 1002, 1001}, "--seeds: 1001 given twice"},
	} {
		err := CheckSeeds("--seeds", tc.seeds)
		if tc.err == "" && err != nil || tc.err != "" && (err == nil || err.Error() != tc.err) {
			t.Errorf("CheckSeeds(%v) = %v, want %q", tc.seeds, err, tc.err)
		}
	}
}
