package experiment

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"testing"
)

// shardTune is a small search with everything its parts carry: two
// scenarios (per-scenario scores), three validation seeds (intervals), a
// grid with a repeated setting, and a round of port roles after it.
func shardTune() TuneConfig {
	c := tinyTune(2, []uint64{3001, 3002})
	busy := c.Scenarios[0]
	busy.Name, busy.Gen.Load = "tiny-busy", 0.8
	c.Scenarios = append(c.Scenarios, busy)
	c.Grid = append(c.Grid, c.Grid[1], Setting{4, 64, 0.25})
	c.Seeds, c.Refine, c.Top, c.Roles = []uint64{2001, 2002, 2003}, 0, 1, true
	return c
}

// tuneParts runs every shard of c's grid of n and returns their parts, by
// build "test", named tune-I.json.
func tuneParts(t *testing.T, c TuneConfig, n int) []partFile {
	t.Helper()
	var parts []partFile
	for i := range n {
		p, err := TuneGridPart(context.Background(), c, Shard{i, n})
		if err != nil {
			t.Fatal(err)
		}
		p.Build = "test"
		parts = append(parts, partFile{fmt.Sprintf("tune-%d.json", i), p})
	}
	return parts
}

// TestMergeTuneEqualsTune: the grid's parts of 1, 2 and 7 shards (more
// than the grid's 5 distinct configurations) merged and continued give
// the very result Tune gives.
func TestMergeTuneEqualsTune(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the search 4 times")
	}
	c := shardTune()
	whole, err := Tune(context.Background(), c)
	if err != nil {
		t.Fatal(err)
	}
	var want bytes.Buffer
	if err := whole.WriteJSON(&want); err != nil {
		t.Fatal(err)
	}
	for _, n := range []int{1, 2, 7} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			parts := tuneParts(t, c, n)
			var rounds []string
			res, err := MergeTune(context.Background(), openAll(t, parts...), "test", TuneRunOptions{Workers: 2,
				Progress: func(r TuneRound) { rounds = append(rounds, r.Name) }})
			if err != nil {
				t.Fatal(err)
			}
			var got bytes.Buffer
			if err := res.WriteJSON(&got); err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got.Bytes(), want.Bytes()) {
				t.Errorf("merged search differs from Tune's:\n%s", firstDiff(got.Bytes(), want.Bytes()))
			}
			if len(rounds) != c.Rounds() || rounds[0] != "grid" {
				t.Errorf("rounds %v, want the grid and %d more", rounds, c.Rounds()-1)
			}
		})
	}
}

// TestMergeTuneRefusals: tune-grid parts that are not one search's, or
// eval parts among them, are refused naming the file.
func TestMergeTuneRefusals(t *testing.T) {
	c := tinyTune(2, []uint64{3001})
	c.Refine = 0
	parts := tuneParts(t, c, 2)
	other := c
	other.Top = 2
	others := tuneParts(t, other, 2)
	evals := evalParts(t, tinyEval(), 2)
	for _, tc := range []struct {
		name  string
		parts []partFile
		want  string
	}{
		{"missing", parts[1:], "shard 0 of 2 missing"},
		{"another search", []partFile{parts[0], {"top2.json", others[1].Part}}, "top2.json: a part of another evaluation than tune-0.json: its tune differ"},
		{"an eval part", []partFile{parts[0], evals[1]}, "part-1.json: a part of kind eval, not tune-grid"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := MergeTune(context.Background(), openAll(t, tc.parts...), "test", TuneRunOptions{})
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("MergeTune: %v, want an error containing %q", err, tc.want)
			}
		})
	}
	if _, err := Merge(openAll(t, parts...), "test"); err == nil || !strings.Contains(err.Error(), "tune-0.json: a part of kind tune-grid, not eval") {
		t.Errorf("Merge of tune parts: %v", err)
	}
}
