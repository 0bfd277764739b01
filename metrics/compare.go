package metrics

import (
	"cmp"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"

	"graphcc/topo"
	"graphcc/trace"
)

// MatchStartTolerance is how far apart the start times of one flow may be in
// two fct.txt files. HPCC reads flow.txt's start seconds as a double, which
// can lose a nanosecond (2.000001995 s starts at 2000001994 ns), so starts
// are not compared exactly.
const MatchStartTolerance = topo.Microsecond

// Diff is one statistic of one group of flows in two record sets.
type Diff struct {
	Group  string  `json:"group"`      // "all", a size bin label ("<=10KB", ...), "incast" or "background"
	Stat   string  `json:"stat"`       // "mean", "p50", "p95" or "p99" of the FCT slowdown
	Ours   float64 `json:"ours"`       // the statistic in our records
	Ref    float64 `json:"ref"`        // the statistic in the reference records
	RelErr float64 `json:"rel_err"`    // (Ours-Ref)/Ref
	OursN  int     `json:"ours_flows"` // flows of the group in our records
	RefN   int     `json:"ref_flows"`  // flows of the group in the reference records
}

// Comparison compares the FCT slowdown statistics of two fct.txt record
// sets, ours and a reference (HPCC's ns-3 simulator on the same topology
// and flow file).
type Comparison struct {
	Diffs     []Diff `json:"diffs"`
	OursFlows int    `json:"ours_flows"` // records in ours
	RefFlows  int    `json:"ref_flows"`  // records in ref
	// Matched counts the flows present in both, paired by (src, dst, size)
	// and a start time within MatchStartTolerance. Ports are not compared.
	Matched int `json:"matched"`
	// OursOnly and RefOnly are the records left unpaired, in input order.
	// Any of them means the two runs did not replay the same trace to its
	// end (different traces, or a run stopped early).
	OursOnly []trace.FCT `json:"-"`
	RefOnly  []trace.FCT `json:"-"`
	// OneSided are the groups with flows on one side only: nothing to
	// compare, and a difference that counts (graphcc compare fails on it).
	OneSided []OneSided `json:"one_sided"`
}

// OneSided is a group of flows that one record set has and the other lacks
// (a size bin whose flows never finished in one run, say).
type OneSided struct {
	Group string `json:"group"`
	OursN int    `json:"ours_flows"`
	RefN  int    `json:"ref_flows"`
}

// SameFlows reports whether every record of each side was paired with one
// of the other.
func (c Comparison) SameFlows() bool { return len(c.OursOnly) == 0 && len(c.RefOnly) == 0 }

// Compare compares the FCT slowdowns of ours against ref, group by group:
// all flows, each size bin of bins (nil means DefaultBins; labels as in
// Summary.WriteTable), incast flows and background flows; in each the mean,
// p50, p95 and p99 (as Summarize computes them, over all records of each
// side). A group empty on both sides is left out; one empty on one side
// only is listed in OneSided. RelErr is
// (Ours-Ref)/Ref; slowdowns are at least 1, so Ref is never 0 for a
// non-empty group (a zero Ref would give 0 or ±Inf).
//
// It also pairs the flows of both sides (see Comparison.Matched). A flow
// missing from one side is reported in OursOnly or RefOnly, not an error.
func Compare(ours, ref []trace.FCT, bins []int64) Comparison {
	if bins == nil {
		bins = DefaultBins()
	}
	c := Comparison{OursFlows: len(ours), RefFlows: len(ref)}
	c.Matched, c.OursOnly, c.RefOnly = matchFlows(ours, ref, MatchStartTolerance)

	so, sr := Summarize(len(ours), ours, bins), Summarize(len(ref), ref, bins)
	type group struct {
		name     string
		ours, rf Stats
	}
	groups := []group{{"all", so.Slowdown, sr.Slowdown}}
	for i, label := range binLabels(so.SlowdownBySize) {
		groups = append(groups, group{label, so.SlowdownBySize[i], sr.SlowdownBySize[i]})
	}
	groups = append(groups,
		group{"incast", so.SlowdownIncast, sr.SlowdownIncast},
		group{"background", so.SlowdownBackground, sr.SlowdownBackground})
	for _, g := range groups {
		if g.ours.Count == 0 || g.rf.Count == 0 {
			if g.ours.Count != g.rf.Count {
				c.OneSided = append(c.OneSided, OneSided{Group: g.name, OursN: g.ours.Count, RefN: g.rf.Count})
			}
			continue
		}
		for _, st := range []struct {
			name    string
			ours, r float64
		}{
			{"mean", g.ours.Mean, g.rf.Mean},
			{"p50", g.ours.P50, g.rf.P50},
			{"p95", g.ours.P95, g.rf.P95},
			{"p99", g.ours.P99, g.rf.P99},
		} {
			c.Diffs = append(c.Diffs, Diff{Group: g.name, Stat: st.name, Ours: st.ours, Ref: st.r,
				RelErr: relErr(st.ours, st.r), OursN: g.ours.Count, RefN: g.rf.Count})
		}
	}
	return c
}

// relErr is (ours-ref)/ref, 0 when both are 0.
func relErr(ours, ref float64) float64 {
	if ref == 0 {
		if ours == 0 {
			return 0
		}
		return math.Inf(int(math.Copysign(1, ours)))
	}
	return (ours - ref) / ref
}

// flowKey identifies a flow up to its start time.
type flowKey struct {
	src, dst topo.NodeID
	size     int64
}

// matchFlows pairs the records of a and b with equal (src, dst, size) and
// starts at most tol apart, as many as possible, and returns the number of
// pairs and the unpaired records of each side in input order.
func matchFlows(a, b []trace.FCT, tol int64) (matched int, aOnly, bOnly []trace.FCT) {
	byKey := func(recs []trace.FCT) map[flowKey][]int {
		m := make(map[flowKey][]int)
		for i, r := range recs {
			k := flowKey{r.Src, r.Dst, r.Size}
			m[k] = append(m[k], i)
		}
		return m
	}
	ka, kb := byKey(a), byKey(b)
	usedA, usedB := make([]bool, len(a)), make([]bool, len(b))
	byStart := func(recs []trace.FCT) func(i, j int) int {
		return func(i, j int) int { return cmp.Or(cmp.Compare(recs[i].Start, recs[j].Start), cmp.Compare(i, j)) }
	}
	for k, ia := range ka {
		ib := kb[k]
		if len(ib) == 0 {
			continue
		}
		slices.SortFunc(ia, byStart(a))
		slices.SortFunc(ib, byStart(b))
		// Greedy over both sorted lists: pairs the most starts within tol.
		for i, j := 0, 0; i < len(ia) && j < len(ib); {
			sa, sb := a[ia[i]].Start, b[ib[j]].Start
			switch {
			case sa < sb-tol:
				i++
			case sb < sa-tol:
				j++
			default:
				usedA[ia[i]], usedB[ib[j]] = true, true
				matched++
				i++
				j++
			}
		}
	}
	for i, r := range a {
		if !usedA[i] {
			aOnly = append(aOnly, r)
		}
	}
	for i, r := range b {
		if !usedB[i] {
			bOnly = append(bOnly, r)
		}
	}
	return matched, aOnly, bOnly
}

// MaxAbsRelErr is the largest |RelErr| of the comparison, 0 if it has no
// statistics.
func (c Comparison) MaxAbsRelErr() float64 {
	m := 0.0
	for _, d := range c.Diffs {
		m = max(m, math.Abs(d.RelErr))
	}
	return m
}

// Exceeding counts the statistics whose |RelErr| is above tol.
func (c Comparison) Exceeding(tol float64) int {
	n := 0
	for _, d := range c.Diffs {
		if math.Abs(d.RelErr) > tol {
			n++
		}
	}
	return n
}

// Within returns nil if every statistic is within tol and no group has
// flows on one side only, else an error saying how many are not:
// "2 of 24 statistics differ by more than 10%", and the first one-sided
// group.
func (c Comparison) Within(tol float64) error {
	bad := c.Exceeding(tol)
	switch {
	case len(c.OneSided) > 0:
		g := c.OneSided[0]
		return fmt.Errorf("%d of %d statistics differ by more than %s, and %d group(s) have flows on one side only (%s: %d flows in ours, %d in ref)",
			bad, len(c.Diffs), FormatTolerance(tol), len(c.OneSided), g.Group, g.OursN, g.RefN)
	case bad > 0:
		return fmt.Errorf("%d of %d statistics differ by more than %s", bad, len(c.Diffs), FormatTolerance(tol))
	}
	return nil
}

// formatRelErr writes a relative error as a signed percentage.
func formatRelErr(e float64) string {
	return fmt.Sprintf("%+.1f%%", 100*e)
}

// FormatTolerance writes a tolerance as a percentage: 0.1 -> "10%".
func FormatTolerance(tol float64) string {
	return strconv.FormatFloat(100*tol, 'g', 4, 64) + "%"
}

// describeFCT names a record for a report line.
func describeFCT(r trace.FCT) string {
	return fmt.Sprintf("%d->%d size %d start %d ns", r.Src, r.Dst, r.Size, r.Start/topo.Nanosecond)
}

// WriteTable writes the comparison as an aligned text table: first the
// flow counts and how many were paired (with up to 3 unpaired records of
// each side), then one row per statistic with both values and the relative
// error, marked "*" when |RelErr| > tol, and a line counting the marks.
func (c Comparison) WriteTable(w io.Writer, tol float64) error {
	fmt.Fprintf(w, "flows: ours %d, ref %d; %d in both (same src, dst, size; start within %s)\n",
		c.OursFlows, c.RefFlows, c.Matched, topo.FormatDuration(MatchStartTolerance))
	for _, side := range []struct {
		name string
		recs []trace.FCT
	}{{"ours", c.OursOnly}, {"ref", c.RefOnly}} {
		if len(side.recs) == 0 {
			continue
		}
		var ex []string
		for _, r := range side.recs[:min(3, len(side.recs))] {
			ex = append(ex, describeFCT(r))
		}
		more := ""
		if len(side.recs) > 3 {
			more = ", ..."
		}
		fmt.Fprintf(w, "WARNING: %d flows only in %s (%s%s)\n", len(side.recs), side.name, strings.Join(ex, "; "), more)
	}
	if !c.SameFlows() {
		fmt.Fprintln(w, "WARNING: the flow sets differ: different traces, or a run that did not finish")
	}
	fmt.Fprintln(w)

	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	row := func(cells ...string) { fmt.Fprintln(tw, strings.Join(cells, "\t")+"\t") }
	row("slowdown", "ours flows", "ref flows", "stat", "ours", "ref", "rel err", "")
	prev := ""
	for _, d := range c.Diffs {
		group, on, rn := "", "", ""
		if d.Group != prev {
			group, on, rn = d.Group, strconv.Itoa(d.OursN), strconv.Itoa(d.RefN)
			prev = d.Group
		}
		mark := ""
		if math.Abs(d.RelErr) > tol {
			mark = "*"
		}
		row(group, on, rn, d.Stat, ff(d.Ours), ff(d.Ref), formatRelErr(d.RelErr), mark)
	}
	for _, g := range c.OneSided {
		row(g.Group, strconv.Itoa(g.OursN), strconv.Itoa(g.RefN), "", "", "", "one side only", "*")
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	one := ""
	if len(c.OneSided) > 0 {
		one = fmt.Sprintf(", and %d group(s) have flows on one side only (*)", len(c.OneSided))
	}
	_, err := fmt.Fprintf(w, "\n%d of %d statistics differ by more than %s (*)%s; max |rel err| %s\n",
		c.Exceeding(tol), len(c.Diffs), FormatTolerance(tol), one, strconv.FormatFloat(100*c.MaxAbsRelErr(), 'f', 1, 64)+"%")
	return err
}

// WriteFCTTable writes the FCT-derived part of s (what Summarize fills) as
// an aligned text table: the slowdown table of Summary.WriteTable, then the
// record count and the mean throughput. It suits a Summary of an fct.txt
// alone, which has no fabric counters.
func (s Summary) WriteFCTTable(w io.Writer) error {
	var b strings.Builder
	if err := s.WriteTable(&b); err != nil {
		return err
	}
	// WriteTable's first block, up to its blank line, is the slowdown table.
	table, _, _ := strings.Cut(b.String(), "\n\n")
	if _, err := fmt.Fprintf(w, "%s\n\n", table); err != nil {
		return err
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "flows\t%d\n", s.Completed)
	fmt.Fprintf(tw, "throughput (mean per flow)\t%s Gbps\n", ff(s.ThroughputGbpsMean))
	return tw.Flush()
}

// CompareReport is a Comparison as JSON (graphcc compare --json): the two
// files, the tolerance, the counts and every statistic.
type CompareReport struct {
	Ours      string     `json:"ours"`
	Ref       string     `json:"ref"`
	Tol       float64    `json:"tol"`
	OursFlows int        `json:"ours_flows"`
	RefFlows  int        `json:"ref_flows"`
	Matched   int        `json:"matched"`
	OursOnly  int        `json:"ours_only"`
	RefOnly   int        `json:"ref_only"`
	Exceeding int        `json:"exceeding"` // statistics with |rel_err| > tol
	MaxAbsRel float64    `json:"max_abs_rel_err"`
	Diffs     []Diff     `json:"diffs"`
	OneSided  []OneSided `json:"one_sided"` // groups with flows on one side only; never null
}

// Report returns the report of c, comparing the files ours and ref with
// tolerance tol.
func (c Comparison) Report(ours, ref string, tol float64) CompareReport {
	rep := CompareReport{
		Ours: ours, Ref: ref, Tol: tol,
		OursFlows: c.OursFlows, RefFlows: c.RefFlows, Matched: c.Matched,
		OursOnly: len(c.OursOnly), RefOnly: len(c.RefOnly),
		Exceeding: c.Exceeding(tol), MaxAbsRel: c.MaxAbsRelErr(), Diffs: c.Diffs, OneSided: c.OneSided,
	}
	if rep.OneSided == nil {
		rep.OneSided = []OneSided{}
	}
	return rep
}
