package metrics

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"

	"graphcc/internal/fileio"
	"graphcc/topo"
	"graphcc/trace"
)

// phasedOrigin is where the arrival window of the tests' phased traces
// starts: 2 s, as generated traffic's.
const phasedOrigin = 2 * topo.Second

// TestPhasesIndex: a flow belongs to the last phase that starts at or
// before it; exactly at a boundary, to the later phase; before the window
// to the first, after its end to the last.
func TestPhasesIndex(t *testing.T) {
	ms := topo.Millisecond
	three := Phases{Origin: phasedOrigin, Starts: []int64{0, 10 * ms, 15 * ms}}
	for _, tc := range []struct {
		name  string
		p     Phases
		start int64
		want  int
	}{
		{"at the origin", three, phasedOrigin, 0},
		{"inside the first", three, phasedOrigin + 10*ms - 1, 0},
		{"at the second's start", three, phasedOrigin + 10*ms, 1},
		{"inside the second", three, phasedOrigin + 12*ms, 1},
		{"at the third's start", three, phasedOrigin + 15*ms, 2},
		{"after the window", three, phasedOrigin + 1000*ms, 2},
		{"before the window", three, phasedOrigin - 1, 0},
		{"at time 0", three, 0, 0},
		{"one phase", Phases{Origin: phasedOrigin, Starts: []int64{0}}, phasedOrigin + 7*ms, 0},
		{"origin 0", Phases{Starts: []int64{0, ms}}, ms, 1},
		{"no phases", Phases{}, phasedOrigin, 0},
	} {
		if got := tc.p.Index(tc.start); got != tc.want {
			t.Errorf("%s: Index(%d) = %d, want %d", tc.name, tc.start, got, tc.want)
		}
	}
}

// phasedRec is a record of a flow of size bytes that starts at ms
// milliseconds into the window with the given slowdown.
func phasedRec(ms float64, size int64, slowdown float64) trace.FCT {
	return trace.FCT{Start: phasedOrigin + int64(ms*float64(topo.Millisecond)), Size: size,
		FCT: int64(slowdown * 1000), Standalone: 1000}
}

// TestSlowdownByPhase: each phase's statistics are those of the flows that
// start in it, a boundary flow counted in the later phase, a phase without
// flows zero; with one phase they are the trace's; without phases there
// are none.
func TestSlowdownByPhase(t *testing.T) {
	ms := topo.Millisecond
	recs := []trace.FCT{
		phasedRec(0, 5000, 2),
		phasedRec(4, 200_000, 10),
		phasedRec(5, 1000, 3), // exactly at phase 1's start
		phasedRec(6, 100_000, 5),
		phasedRec(7, 100_001, 40), // not a small flow
		phasedRec(15, 2000, 7),    // at phase 3's start: phase 2 has none
	}
	p := Phases{Origin: phasedOrigin, Starts: []int64{0, 5 * ms, 10 * ms, 15 * ms}}
	got := SlowdownByPhase(recs, p)
	want := []PhaseStats{
		{StartMs: 0, Slowdown: Stats{Count: 2, Mean: 6, P50: 10, P95: 10, P99: 10}, SmallP99: 2},
		{StartMs: 5, Slowdown: Stats{Count: 3, Mean: 16, P50: 5, P95: 40, P99: 40}, SmallP99: 5},
		{StartMs: 10},
		{StartMs: 15, Slowdown: Stats{Count: 1, Mean: 7, P50: 7, P95: 7, P99: 7}, SmallP99: 7},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("SlowdownByPhase:\n got %+v\nwant %+v", got, want)
	}

	// One phase: the whole trace's statistics and short-flow p99, however
	// the records are ordered.
	r := rand.New(rand.NewPCG(5, 5))
	many := intervalRecs(r, 1000)
	for i := range many {
		many[i].Start = phasedOrigin + r.Int64N(40*ms)
	}
	one := SlowdownByPhase(many, Phases{Origin: phasedOrigin, Starts: []int64{0}})
	small := SlowdownStats(many, func(f trace.FCT) bool { return f.Size <= SmallFlowBytes })
	if len(one) != 1 || one[0].Slowdown != SlowdownStats(many, nil) || one[0].SmallP99 != small.P99 || small.Count == 0 {
		t.Errorf("one phase: %+v, want %+v and short-flow p99 %v", one, SlowdownStats(many, nil), small.P99)
	}
	// Several: each phase's are SlowdownStats of its records.
	five := Phases{Origin: phasedOrigin, Starts: []int64{0, 3 * ms, 10 * ms, 20 * ms, 35 * ms}}
	for i, st := range SlowdownByPhase(many, five) {
		in := func(f trace.FCT) bool {
			end := int64(1 << 62)
			if i+1 < len(five.Starts) {
				end = five.Starts[i+1]
			}
			at := f.Start - phasedOrigin
			return at >= five.Starts[i] && at < end
		}
		w := SlowdownStats(many, in)
		ws := SlowdownStats(many, func(f trace.FCT) bool { return in(f) && f.Size <= SmallFlowBytes })
		if st.Slowdown != w || st.SmallP99 != ws.P99 || w.Count == 0 {
			t.Errorf("phase %d of five: %+v, want %+v and short-flow p99 %v", i, st, w, ws.P99)
		}
	}
	if got := SlowdownByPhase(many, Phases{}); got != nil {
		t.Errorf("no phases: %+v", got)
	}
	if l := NewJackknife([][]trace.FCT{many}, []float64{0}, nil, Phases{}); l.PhaseMean != nil {
		t.Errorf("a jackknife without phases has phase means %v", l.PhaseMean)
	}
}

// TestSummaryPhasesJSON: a summary's phases go into its JSON under
// slowdown_by_phase and read back the same; a summary without phases has
// no such key, its JSON what it was before phases existed, and its table
// no phase rows.
func TestSummaryPhasesJSON(t *testing.T) {
	s := sampleSummary()
	var plain bytes.Buffer
	if err := fileio.WriteJSON(&plain, s); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(plain.String(), "phase") {
		t.Errorf("a summary without phases mentions them:\n%s", plain.String())
	}
	var table bytes.Buffer
	if err := s.WriteTable(&table); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(table.String(), "phase") {
		t.Errorf("a table without phases mentions them:\n%s", table.String())
	}

	s.Phases = SlowdownByPhase([]trace.FCT{phasedRec(1, 5000, 2), phasedRec(12.5, 2_000_000, 9.5)},
		Phases{Origin: phasedOrigin, Starts: []int64{0, 10 * topo.Millisecond, 12500 * topo.Microsecond}})
	var b bytes.Buffer
	if err := fileio.WriteJSON(&b, s); err != nil {
		t.Fatal(err)
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(b.Bytes(), &m); err != nil {
		t.Fatal(err)
	}
	var phases []map[string]json.RawMessage
	if err := json.Unmarshal(m["slowdown_by_phase"], &phases); err != nil || len(phases) != 3 {
		t.Fatalf("slowdown_by_phase: %s (%v)", m["slowdown_by_phase"], err)
	}
	if string(phases[2]["start_ms"]) != "12.5" || string(phases[1]["slowdown_p99_small"]) != "0" {
		t.Errorf("phases in JSON: %s", m["slowdown_by_phase"])
	}
	var back Summary
	if err := json.Unmarshal(b.Bytes(), &back); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(back.Phases, s.Phases) {
		t.Errorf("phases read back:\n got %+v\nwant %+v", back.Phases, s.Phases)
	}
	var again bytes.Buffer
	if err := fileio.WriteJSON(&again, back); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(again.Bytes(), b.Bytes()) {
		t.Errorf("a summary read back writes other JSON:\n%s\nwant\n%s", again.String(), b.String())
	}
	table.Reset()
	if err := s.WriteTable(&table); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"phase from 0 ms", "phase from 12.5 ms", "phase from 10 ms      0       –"} {
		if !strings.Contains(table.String(), want) {
			t.Errorf("table lacks %q:\n%s", want, table.String())
		}
	}
}

// BenchmarkSlowdownByPhase splits as many records as eval merges of day
// at three seeds (404,115 at 1001-1003) over its five phases, beside
// Summarize of the same records: the split costs a fraction of what the
// summary already does.
func BenchmarkSlowdownByPhase(b *testing.B) {
	ms := topo.Millisecond
	r := rand.New(rand.NewPCG(9, 9))
	recs := intervalRecs(r, 404_115)
	for i := range recs {
		recs[i].Start = phasedOrigin + r.Int64N(40*ms)
	}
	slices.SortFunc(recs, func(x, y trace.FCT) int { return int(x.FCT - y.FCT) }) // completion order, roughly
	p := Phases{Origin: phasedOrigin, Starts: []int64{0, 10 * ms, 15 * ms, 25 * ms, 30 * ms}}
	b.Run("by-phase", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			SlowdownByPhase(recs, p)
		}
	})
	b.Run("summarize", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			Summarize(len(recs), recs, nil)
		}
	})
}
