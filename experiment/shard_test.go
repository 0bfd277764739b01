package experiment

import (
	"fmt"
	"strings"
	"testing"

	"graphcc/scenario"
)

func TestParseShard(t *testing.T) {
	for _, tc := range []struct {
		spec string
		env  map[string]string
		want Shard
		err  string // a part of the error
	}{
		{spec: "0/3", want: Shard{0, 3}},
		{spec: " 2 / 3 ", want: Shard{2, 3}},
		{spec: "0/1", want: Shard{0, 1}},
		{spec: "0/100000", want: Shard{0, 100000}},
		{spec: "3/3", err: `shard index "3": want a whole number from 0 to 2`},
		{spec: "-1/3", err: `shard index "-1"`},
		{spec: "a/3", err: `shard index "a"`},
		{spec: "1/0", err: `shard count "0"`},
		{spec: "1/100001", err: `shard count "100001"`},
		{spec: "1/x", err: `shard count "x"`},
		{spec: "", err: `shard count ""`},
		{spec: "env/3", env: map[string]string{"SLURM_ARRAY_TASK_ID": "1"}, want: Shard{1, 3}},
		{spec: "env/3", env: map[string]string{"JOB_COMPLETION_INDEX": "2"}, want: Shard{2, 3}},
		{spec: "env/3", err: "neither SLURM_ARRAY_TASK_ID nor JOB_COMPLETION_INDEX is set"},
		{spec: "env/x", env: map[string]string{"SLURM_ARRAY_TASK_ID": "1"}, err: `shard count "x"`},
		{spec: "3", env: map[string]string{"SLURM_ARRAY_TASK_ID": "1"}, want: Shard{1, 3}},
		{spec: "3", env: map[string]string{"JOB_COMPLETION_INDEX": "2"}, want: Shard{2, 3}},
		{spec: "3", env: map[string]string{"SLURM_ARRAY_TASK_ID": "0", "JOB_COMPLETION_INDEX": "2"}, want: Shard{0, 3}},
		{spec: "1/3", env: map[string]string{"SLURM_ARRAY_TASK_ID": "2"}, want: Shard{1, 3}}, // I/N wins
		{spec: "3", env: map[string]string{"SLURM_ARRAY_TASK_ID": "x"}, err: `shard index from SLURM_ARRAY_TASK_ID="x": want a whole number from 0 to 2`},
		{spec: "3", env: map[string]string{"SLURM_ARRAY_TASK_ID": ""}, err: `SLURM_ARRAY_TASK_ID=""`},
		{spec: "3", env: map[string]string{"SLURM_ARRAY_TASK_ID": "3"}, err: "--array=0-2"},
		{spec: "3", env: map[string]string{"JOB_COMPLETION_INDEX": "-1"}, err: `JOB_COMPLETION_INDEX="-1"`},
		{spec: "3", err: "neither SLURM_ARRAY_TASK_ID nor JOB_COMPLETION_INDEX is set"},
	} {
		t.Run(tc.spec+" "+strings.Join(envList(tc.env), ","), func(t *testing.T) {
			got, err := ParseShard(tc.spec, func(k string) (string, bool) {
				v, ok := tc.env[k]
				return v, ok
			})
			switch {
			case tc.err != "":
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Errorf("ParseShard = %v, %v; want an error containing %q", got, err, tc.err)
				}
			case err != nil:
				t.Errorf("ParseShard: %v", err)
			case got != tc.want:
				t.Errorf("ParseShard = %v, want %v", got, tc.want)
			case got.String() != fmt.Sprintf("%d/%d", tc.want.Index, tc.want.Count):
				t.Errorf("String = %q, want %d/%d", got.String(), tc.want.Index, tc.want.Count)
			}
		})
	}
}

func envList(env map[string]string) []string {
	var out []string
	for k, v := range env {
		out = append(out, k+"="+v)
	}
	return out
}

// TestShardUnits: the shards of any number of units are complete,
// disjoint, balanced (sizes differ by at most one), ascending, and the
// same every time.
func TestShardUnits(t *testing.T) {
	for total := range 40 {
		for n := 1; n <= 9; n++ {
			owner := make([]int, total)
			for u := range owner {
				owner[u] = -1
			}
			lo, hi := total, 0
			for i := range n {
				s := Shard{i, n}
				units := s.Units(total)
				if again := s.Units(total); fmt.Sprint(again) != fmt.Sprint(units) {
					t.Fatalf("shard %v of %d units: %v, then %v", s, total, units, again)
				}
				for k, u := range units {
					if k > 0 && u <= units[k-1] {
						t.Fatalf("shard %v of %d units not ascending: %v", s, total, units)
					}
					if owner[u] >= 0 {
						t.Fatalf("unit %d of %d in shards %d and %d of %d", u, total, owner[u], i, n)
					}
					owner[u] = i
				}
				lo, hi = min(lo, len(units)), max(hi, len(units))
			}
			for u, o := range owner {
				if o < 0 {
					t.Fatalf("unit %d of %d in no shard of %d", u, total, n)
				}
			}
			if hi-lo > 1 {
				t.Errorf("%d units in %d shards: %d to %d each", total, n, lo, hi)
			}
		}
	}
	if got := (Shard{}).Units(3); len(got) != 3 {
		t.Errorf("the zero Shard has units %v, want all 3", got)
	}
}

// TestShardSpreadsPolicies: with as many policies as shards, each shard
// still gets an equal share of every policy (its seeds), not one policy
// each, so that policies of different costs are spread.
func TestShardSpreadsPolicies(t *testing.T) {
	pc := PartConfig{Scenarios: make([]scenario.Record, 2), Policies: []PartPolicy{{Name: "static"}, {Name: "acc"}}, Seeds: make([]uint64, 10)}
	for i := range pc.Scenarios {
		pc.Scenarios[i].Name = []string{"a", "b"}[i]
	}
	for i := range pc.Seeds {
		pc.Seeds[i] = uint64(1001 + i)
	}
	for i := range 2 {
		count := map[string]int{}
		for _, u := range (Shard{i, 2}).Units(pc.units()) {
			sc, pol, _ := pc.unit(u)
			count[sc+" "+pol]++
		}
		for _, k := range []string{"a static", "a acc", "b static", "b acc"} {
			if count[k] != 5 {
				t.Errorf("shard %d/2 has %d units of %s, want 5 of each: %v", i, count[k], k, count)
			}
		}
	}
}
