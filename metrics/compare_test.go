package metrics

import (
	"math"
	"slices"
	"strings"
	"testing"

	"graphcc/topo"
	"graphcc/trace"
)

// rec is a record of slowdown s (standalone 1000 ps).
func rec(src, dst topo.NodeID, size, startNs int64, dport int, s float64) trace.FCT {
	return trace.FCT{Src: src, Dst: dst, SPort: 10000, DPort: dport, Size: size,
		Start: startNs * topo.Nanosecond, FCT: int64(s * 1000), Standalone: 1000}
}

// compareFixture: three flows in both (the first with starts 1 ns apart),
// one 200 KB incast flow only in ours, one 1 KB flow only in ref.
func compareFixture() (ours, ref []trace.FCT) {
	bg := trace.DPortBackground
	ours = []trace.FCT{
		rec(1, 2, 1000, 0, bg, 2),
		rec(1, 2, 1000, 10, bg, 2),
		rec(3, 2, 50_000, 0, bg, 3),
		rec(4, 2, 200_000, 5, trace.DPortIncast, 5),
	}
	ref = []trace.FCT{
		rec(5, 6, 1000, 0, bg, 4),
		rec(1, 2, 1000, 11, bg, 4), // a nanosecond off, as HPCC's double starts can be
		rec(1, 2, 1000, 0, bg, 4),
		rec(3, 2, 50_000, 0, bg, 2),
	}
	return ours, ref
}

func TestCompare(t *testing.T) {
	ours, ref := compareFixture()
	c := Compare(ours, ref, nil)
	if c.OursFlows != 4 || c.RefFlows != 4 || c.Matched != 3 {
		t.Errorf("flows %d/%d, matched %d; want 4/4, 3", c.OursFlows, c.RefFlows, c.Matched)
	}
	if len(c.OursOnly) != 1 || c.OursOnly[0] != ours[3] || len(c.RefOnly) != 1 || c.RefOnly[0] != ref[0] {
		t.Errorf("ours only %+v, ref only %+v", c.OursOnly, c.RefOnly)
	}
	if c.SameFlows() {
		t.Error("SameFlows with unpaired flows")
	}

	// all: ours 2 2 3 5, ref 2 4 4 4. <=10KB: 2 2 vs 4 4 4. 10KB-100KB: 3 vs
	// 2. background: 2 2 3 vs 2 4 4 4. 100KB-1MB and incast are empty in
	// ref, >1MB in both: left out.
	type key struct{ group, stat string }
	want := map[key][3]float64{ // ours, ref, rel err
		{"all", "mean"}:        {3, 3.5, -1.0 / 7},
		{"all", "p50"}:         {3, 4, -0.25},
		{"all", "p95"}:         {5, 4, 0.25},
		{"all", "p99"}:         {5, 4, 0.25},
		{"<=10KB", "mean"}:     {2, 4, -0.5},
		{"<=10KB", "p50"}:      {2, 4, -0.5},
		{"<=10KB", "p95"}:      {2, 4, -0.5},
		{"<=10KB", "p99"}:      {2, 4, -0.5},
		{"10KB-100KB", "mean"}: {3, 2, 0.5},
		{"10KB-100KB", "p50"}:  {3, 2, 0.5},
		{"10KB-100KB", "p95"}:  {3, 2, 0.5},
		{"10KB-100KB", "p99"}:  {3, 2, 0.5},
		{"background", "mean"}: {7.0 / 3, 3.5, -1.0 / 3},
		{"background", "p50"}:  {2, 4, -0.5},
		{"background", "p95"}:  {3, 4, -0.25},
		{"background", "p99"}:  {3, 4, -0.25},
	}
	counts := map[string][2]int{"all": {4, 4}, "<=10KB": {2, 3}, "10KB-100KB": {1, 1}, "background": {3, 4}}
	if len(c.Diffs) != len(want) {
		t.Errorf("%d diffs, want %d: %+v", len(c.Diffs), len(want), c.Diffs)
	}
	order := []string{"all", "<=10KB", "10KB-100KB", "background"}
	for i, d := range c.Diffs {
		if g := order[i/4]; d.Group != g || d.Stat != []string{"mean", "p50", "p95", "p99"}[i%4] {
			t.Errorf("diff %d is %s %s, want group %s in order mean p50 p95 p99", i, d.Group, d.Stat, g)
		}
		w, ok := want[key{d.Group, d.Stat}]
		if !ok {
			t.Errorf("unexpected diff %+v", d)
			continue
		}
		if math.Abs(d.Ours-w[0]) > 1e-12 || math.Abs(d.Ref-w[1]) > 1e-12 || math.Abs(d.RelErr-w[2]) > 1e-12 {
			t.Errorf("%s %s: ours %v ref %v rel %v; want %v", d.Group, d.Stat, d.Ours, d.Ref, d.RelErr, w)
		}
		if n := counts[d.Group]; d.OursN != n[0] || d.RefN != n[1] {
			t.Errorf("%s: flows %d/%d, want %v", d.Group, d.OursN, d.RefN, n)
		}
	}
	// The 200 KB incast flow is only in ours: its bin and the incast
	// group are one-sided.
	if want := []OneSided{{"100KB-1MB", 1, 0}, {"incast", 1, 0}}; !slices.Equal(c.OneSided, want) {
		t.Errorf("one-sided groups %+v, want %+v", c.OneSided, want)
	}
	var tb strings.Builder
	if err := c.WriteTable(&tb, 0.3); err != nil || !strings.Contains(tb.String(), "one side only") ||
		!strings.Contains(tb.String(), "and 2 group(s) have flows on one side only") {
		t.Errorf("table does not show the one-sided groups (%v):\n%s", err, tb.String())
	}
	if got := c.MaxAbsRelErr(); got != 0.5 {
		t.Errorf("MaxAbsRelErr = %v, want 0.5", got)
	}
	if got := c.Exceeding(0.3); got != 10 {
		t.Errorf("Exceeding(0.3) = %d, want 10", got)
	}
	if got := c.Exceeding(0.5); got != 0 {
		t.Errorf("Exceeding(0.5) = %d, want 0 (not strictly above)", got)
	}

	// Identical sets: everything pairs, every error is 0.
	same := Compare(ours, ours, nil)
	if !same.SameFlows() || same.Matched != 4 || same.MaxAbsRelErr() != 0 {
		t.Errorf("ours vs ours: matched %d, max rel err %v", same.Matched, same.MaxAbsRelErr())
	}
	if len(same.Diffs) != 4*6 { // all, 3 non-empty bins, incast, background
		t.Errorf("ours vs ours: %d diffs, want 24", len(same.Diffs))
	}
	if same.OneSided != nil {
		t.Errorf("ours vs ours: one-sided %+v", same.OneSided)
	}
	if empty := Compare(nil, ref, nil); len(empty.Diffs) != 0 || empty.MaxAbsRelErr() != 0 || empty.Matched != 0 {
		t.Errorf("nothing vs ref: %+v", empty)
	}
}

func TestCompareMatching(t *testing.T) {
	tol := MatchStartTolerance / topo.Nanosecond
	bg := trace.DPortBackground
	for _, tc := range []struct {
		name             string
		ours, ref        []int64 // starts, ns, of flows 1->2 of 1000 B
		matched, oo, roo int
	}{
		{"multiset", []int64{5, 5}, []int64{5, 5, 5}, 2, 0, 1},
		{"at tolerance", []int64{100}, []int64{100 + tol}, 1, 0, 0},
		{"beyond tolerance", []int64{100}, []int64{100 + tol + 1}, 0, 1, 1},
		// Pairing tol with its nearest, tol, would strand 2*tol and 0.
		{"greedy in order", []int64{tol, 2 * tol}, []int64{0, tol}, 2, 0, 0},
		{"disjoint", []int64{0}, nil, 0, 1, 0},
	} {
		mk := func(starts []int64) []trace.FCT {
			var recs []trace.FCT
			for _, s := range starts {
				recs = append(recs, rec(1, 2, 1000, s, bg, 1))
			}
			return recs
		}
		c := Compare(mk(tc.ours), mk(tc.ref), nil)
		if c.Matched != tc.matched || len(c.OursOnly) != tc.oo || len(c.RefOnly) != tc.roo {
			t.Errorf("%s: matched %d, ours only %d, ref only %d; want %d, %d, %d",
				tc.name, c.Matched, len(c.OursOnly), len(c.RefOnly), tc.matched, tc.oo, tc.roo)
		}
	}
	// Size, src and dst must agree; ports need not.
	a := []trace.FCT{rec(1, 2, 1000, 0, bg, 1)}
	for _, b := range []trace.FCT{rec(2, 1, 1000, 0, bg, 1), rec(1, 2, 1001, 0, bg, 1)} {
		if c := Compare(a, []trace.FCT{b}, nil); c.Matched != 0 {
			t.Errorf("%+v paired with %+v", b, a[0])
		}
	}
	b := a[0]
	b.SPort, b.DPort = 10007, trace.DPortIncast
	if c := Compare(a, []trace.FCT{b}, nil); c.Matched != 1 {
		t.Errorf("ports kept %+v from pairing with %+v", b, a[0])
	}
}

func TestCompareWriteTable(t *testing.T) {
	ours, ref := compareFixture()
	var b strings.Builder
	if err := Compare(ours, ref, nil).WriteTable(&b, 0.3); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{
		"flows: ours 4, ref 4; 3 in both (same src, dst, size; start within 1us)",
		"WARNING: 1 flows only in ours (4->2 size 200000 start 5 ns)",
		"WARNING: 1 flows only in ref (5->6 size 1000 start 0 ns)",
		"WARNING: the flow sets differ",
		"10 of 16 statistics differ by more than 30% (*), and 2 group(s) have flows on one side only (*); max |rel err| 50.0%",
		"100KB-1MB           1          0                      one side only  *",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("table lacks %q:\n%s", want, out)
		}
	}
	rows := 0
	for line := range strings.Lines(out) {
		f := strings.Fields(line)
		if len(f) < 4 || !slices.Contains([]string{"mean", "p50", "p95", "p99"}, f[0]) &&
			!slices.Contains(f, "mean") {
			continue
		}
		rows++
		marked := f[len(f)-1] == "*"
		relErr := f[len(f)-1]
		if marked {
			relErr = f[len(f)-2]
		}
		if big := relErr == "-50.0%" || relErr == "+50.0%" || relErr == "-33.3%"; big != marked {
			t.Errorf("row %q: marked %v, want %v", line, marked, big)
		}
	}
	if rows != 16 {
		t.Errorf("%d statistic rows, want 16:\n%s", rows, out)
	}
	// Group names and counts on the first row of each group only.
	if n := strings.Count(out, "<=10KB"); n != 1 {
		t.Errorf("<=10KB appears %d times:\n%s", n, out)
	}

	b.Reset()
	if err := Compare(ours, ours, nil).WriteTable(&b, 0.1); err != nil {
		t.Fatal(err)
	}
	if out := b.String(); strings.Contains(out, "WARNING") || strings.Contains(out, "*\n") ||
		!strings.Contains(out, "0 of 24 statistics differ by more than 10%") {
		t.Errorf("ours vs ours:\n%s", out)
	}
}

func TestSummaryWriteFCTTable(t *testing.T) {
	ours, _ := compareFixture()
	var b strings.Builder
	if err := Summarize(len(ours), ours, nil).WriteFCTTable(&b); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	var full strings.Builder
	Summarize(len(ours), ours, nil).WriteTable(&full)
	table, _, _ := strings.Cut(full.String(), "\n\n")
	if !strings.HasPrefix(out, table+"\n\n") {
		t.Errorf("WriteFCTTable does not start with WriteTable's slowdown table:\n%s", out)
	}
	for _, want := range []string{"background", ">1MB", "flows", "throughput (mean per flow)"} {
		if !strings.Contains(out, want) {
			t.Errorf("lacks %q:\n%s", want, out)
		}
	}
	for _, not := range []string{"pfc pauses", "wall time", "completed"} {
		if strings.Contains(out, not) {
			t.Errorf("has fabric field %q:\n%s", not, out)
		}
	}
}

func TestFormatTolerance(t *testing.T) {
	for tol, want := range map[float64]string{0.1: "10%", 0.05: "5%", 0.125: "12.5%", 0: "0%", 1: "100%"} {
		if got := FormatTolerance(tol); got != want {
			t.Errorf("FormatTolerance(%v) = %q, want %q", tol, got, want)
		}
	}
}

// TestCompareReport: the report carries the comparison's counts, and an
// empty list, not null, of one-sided groups.
func TestCompareReport(t *testing.T) {
	ours, ref := compareFixture()
	c := Compare(ours, ref, nil)
	rep := c.Report("ours.fct", "ref.fct", 0.1)
	if rep.Ours != "ours.fct" || rep.Ref != "ref.fct" || rep.Tol != 0.1 || rep.Matched != c.Matched ||
		rep.OursFlows != len(ours) || rep.RefFlows != len(ref) || rep.Exceeding != c.Exceeding(0.1) ||
		rep.MaxAbsRel != c.MaxAbsRelErr() || len(rep.Diffs) != len(c.Diffs) {
		t.Errorf("report %+v of %+v", rep, c)
	}
	if c.OneSided == nil && rep.OneSided == nil {
		t.Error("one_sided is null")
	}
}

func TestComparisonWithin(t *testing.T) {
	diffs := []Diff{{RelErr: 0.05}, {RelErr: -0.2}, {RelErr: 0.3}}
	for _, tc := range []struct {
		c   Comparison
		tol float64
		err string
	}{
		{Comparison{Diffs: diffs}, 0.5, ""},
		{Comparison{}, 0, ""},
		{Comparison{Diffs: diffs}, 0.1, "2 of 3 statistics differ by more than 10%"},
		{Comparison{Diffs: diffs, OneSided: []OneSided{{"incast", 1, 0}}}, 0.5,
			"0 of 3 statistics differ by more than 50%, and 1 group(s) have flows on one side only (incast: 1 flows in ours, 0 in ref)"},
	} {
		err := tc.c.Within(tc.tol)
		if tc.err == "" && err != nil || tc.err != "" && (err == nil || err.Error() != tc.err) {
			t.Errorf("Within(%v) = %v, want %q", tc.tol, err, tc.err)
		}
	}
}
