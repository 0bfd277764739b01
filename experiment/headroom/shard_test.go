package headroom

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"testing"

	"graphcc/experiment"
	"graphcc/experiment/tune"
	"graphcc/policy"
)

// parts runs every shard of n with run, writes each part as its file and
// opens it again, as graphcc merge reads the files.
func parts(t *testing.T, n int, run func(experiment.Shard) (*experiment.Part, error)) []*experiment.PartReader {
	t.Helper()
	var out []*experiment.PartReader
	for i := range n {
		p, err := run(experiment.Shard{Index: i, Count: n})
		if err != nil {
			t.Fatal(err)
		}
		p.Build = "test"
		var b bytes.Buffer
		if err := experiment.WritePart(&b, p); err != nil {
			t.Fatal(err)
		}
		pr, err := experiment.OpenPart(&b, fmt.Sprintf("part-%d.json", i))
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, pr)
	}
	return out
}

func markdownOf(t *testing.T, r *Result) string {
	t.Helper()
	var b strings.Builder
	if err := r.WriteMarkdown(&b); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// TestShardedEqualsMeasure checks that the two sharded stages and their
// merges (the search's grid in 3 shards, then the rows in 4, more than
// some shards have units for) give the result Measure gives, byte for
// byte in JSON and Markdown, and that the merge refuses a part of
// another measurement.
func TestShardedEqualsMeasure(t *testing.T) {
	ctx := context.Background()
	// tiny, with a fourth setting and selection seeds on which the
	// descent keeps a schedule, and a policy
	withPolicy := func(c Config) Config {
		c.Grid = append(c.Grid, tune.Setting{KMinKB: 8, KMaxKB: 64, PMax: 0.1})
		c.Candidates, c.SelectSeeds = 5, []uint64{2010, 2011, 2012}
		c.Also = []tune.Candidate{{Setting: tune.Setting{KMinKB: 1, KMaxKB: 8, PMax: 0.5}}}
		np, err := policy.Parse(ctx, "static:4,8,0.5", policy.Env{})
		if err != nil {
			t.Fatal(err)
		}
		c.Policies = []policy.Named{np}
		return c
	}
	whole, err := Measure(ctx, withPolicy(tiny(2)))
	if err != nil {
		t.Fatal(err)
	}
	if len(whole.Rows) != 4 || whole.Rows[1].Name != "schedule" || whole.Rows[3].Policy != "static:4,8,0.5" || whole.Candidates[1] != "static:1,8,0.5" {
		t.Fatalf("rows %+v, candidates %v: want the constant, the schedule, the ideal and the policy, and the one given besides second", whole.Rows, whole.Candidates)
	}

	search := parts(t, 3, func(s experiment.Shard) (*experiment.Part, error) { return SearchPart(ctx, withPolicy(tiny(1)), s) })
	tr, err := tune.Merge(ctx, search, "test", tune.MergeOptions{Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	c := withPolicy(tiny(1))
	c.Tuned = tr
	if _, err := SearchPart(ctx, c, experiment.Shard{Index: 0, Count: 1}); err == nil {
		t.Error("a search part of a measurement whose search is done")
	}
	if n := RowsRuns(ctx, c, experiment.Shard{Index: 3, Count: 4}); n != 2 { // 3 rows × 3 seeds: units 3 and 7
		t.Errorf("shard 3 of 4 has %d runs, want 2", n)
	}
	rows := parts(t, 4, func(s experiment.Shard) (*experiment.Part, error) { return RowsPart(ctx, c, s) })
	journaled := 0
	merged, err := Merge(ctx, rows, "test", func(c *Config) error {
		c.Workers, c.Checkpoint = 2, func(*Journal) error { journaled++; return nil }
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if jsonOf(t, merged) != jsonOf(t, whole) || markdownOf(t, merged) != markdownOf(t, whole) {
		t.Errorf("sharded and whole differ:\n%s\n%s\n%s\n%s", jsonOf(t, merged), jsonOf(t, whole), markdownOf(t, merged), markdownOf(t, whole))
	}
	if journaled == 0 {
		t.Error("the merge's descent was not journaled")
	}

	other := c
	other.Passes = 1
	mixed := parts(t, 2, func(s experiment.Shard) (*experiment.Part, error) {
		if s.Index == 1 {
			return RowsPart(ctx, other, s)
		}
		return RowsPart(ctx, c, s)
	})
	if _, err := Merge(ctx, mixed, "test", nil); err == nil || !strings.Contains(err.Error(), "another evaluation") {
		t.Errorf("parts of two measurements merged: %v", err)
	}
	if _, err := Merge(ctx, search, "test", nil); err == nil || !strings.Contains(err.Error(), "not headroom") {
		t.Errorf("search parts merged as rows: %v", err)
	}
}

// TestShardProgress checks that each stage's shard reports its runs as
// they finish, up to the count SearchRuns and RowsRuns give (what graphcc
// headroom --shard's meter shows).
func TestShardProgress(t *testing.T) {
	ctx := context.Background()
	var last [2]int
	calls := 0
	c := tiny(1)
	c.RunProgress = func(done, total int) { last, calls = [2]int{done, total}, calls+1 }
	check := func(stage string, n int) {
		t.Helper()
		if n == 0 || calls != n || last != [2]int{n, n} {
			t.Errorf("%s: %d calls, last %v, want %d up to %d of %[3]d", stage, calls, last, n, n)
		}
		calls, last = 0, [2]int{}
	}
	search := parts(t, 2, func(s experiment.Shard) (*experiment.Part, error) {
		p, err := SearchPart(ctx, c, s)
		check(fmt.Sprintf("search shard %s", s), SearchRuns(c, s))
		return p, err
	})
	tr, err := tune.Merge(ctx, search, "test", tune.MergeOptions{Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	c.Tuned, calls = tr, 0
	s := experiment.Shard{Index: 1, Count: 2}
	if _, err := RowsPart(ctx, c, s); err != nil {
		t.Fatal(err)
	}
	check("rows shard 1/2", RowsRuns(ctx, c, s))
}
