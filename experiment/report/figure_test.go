package report

import (
	"bytes"
	"math"
	"reflect"
	"strings"
	"testing"

	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/vgimg"

	"graphcc/experiment"
	"graphcc/metrics"
)

func TestLegendLayout(t *testing.T) {
	tests := []struct {
		name   string
		widths []vg.Length
		want   []legendSpot
		rows   int
	}{
		{"none", nil, []legendSpot{}, 1},
		{"one row", []vg.Length{10, 20}, []legendSpot{{0, 100}, {0, 112}}, 1},
		{"fills exactly", []vg.Length{40, 38}, []legendSpot{{0, 100}, {0, 142}}, 1},
		{"wraps", []vg.Length{40, 40, 40, 10}, []legendSpot{{0, 100}, {1, 100}, {2, 100}, {2, 142}}, 3},
		{"too wide alone", []vg.Length{500, 10}, []legendSpot{{0, 100}, {1, 100}}, 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, rows := legendLayout(tt.widths, 100, 180, 2)
			if !reflect.DeepEqual(got, tt.want) || rows != tt.rows {
				t.Errorf("got %v in %d rows, want %v in %d", got, rows, tt.want, tt.rows)
			}
		})
	}
}

func TestFitLegend(t *testing.T) {
	many := make([]vg.Length, 50)
	for i := range many {
		many[i] = 30
	}
	tests := []struct {
		name       string
		widths     []vg.Length
		kept, rows int
		last       legendSpot // where the last spot goes
	}{
		{"fits", []vg.Length{10, 20}, 2, 1, legendSpot{0, 112}},
		{"three rows fit", []vg.Length{70, 70, 70}, 3, 3, legendSpot{2, 100}},
		// rows of two 30s (100, 132); the third row holds one 30 and the 40
		// of "more" would not fit beside a second
		{"too many", many, 5, 3, legendSpot{2, 132}},
		{"nothing fits beside more", []vg.Length{75, 75, 75, 75}, 2, 3, legendSpot{2, 100}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			spots, kept, rows := fitLegend(tt.widths, 40, 100, 180, 2, 3)
			if kept != tt.kept || rows != tt.rows || spots[len(spots)-1] != tt.last {
				t.Errorf("kept %d in %d rows, last spot %v; want %d in %d, %v", kept, rows, spots[len(spots)-1], tt.kept, tt.rows, tt.last)
			}
			if want := tt.kept; kept < len(tt.widths) {
				if len(spots) != want+1 {
					t.Errorf("%d spots for %d kept and the more entry", len(spots), want)
				}
			}
		})
	}
}

// TestFigureIntervals: with three seeds the figure draws an error bar for
// each ratio's interval but the reference's, and none once the intervals
// are taken out.
func TestFigureIntervals(t *testing.T) {
	c := tinyEval()
	c.Seeds = []uint64{1, 2, 3}
	rep, err := experiment.Evaluate(t.Context(), c)
	if err != nil {
		t.Fatal(err)
	}
	png := func() ([]byte, int) {
		t.Helper()
		c, bars, err := drawFigure(view{rep}, 0)
		if err != nil {
			t.Fatal(err)
		}
		var b bytes.Buffer
		if _, err := (vgimg.PngCanvas{Canvas: c}).WriteTo(&b); err != nil {
			t.Fatal(err)
		}
		return b.Bytes(), bars
	}
	with, bars := png()
	n := 0
	for i := range rep.Scenarios[0].Policies[1].BinVsRef {
		br := &rep.Scenarios[0].Policies[1].BinVsRef[i]
		for _, r := range []*metrics.Ratio{&br.P50, &br.P95, &br.P99} {
			if r.HasInterval() {
				n++
				r.Lo, r.Hi = 0, 0
			}
		}
	}
	if n == 0 {
		t.Fatal("no interval to draw")
	}
	if bars != n {
		t.Errorf("%d error bars drawn for %d intervals", bars, n)
	}
	without, none := png()
	if none != 0 || bytes.Equal(with, without) {
		t.Errorf("without intervals: %d error bars, the same figure: %v", none, bytes.Equal(with, without))
	}
}

func TestCountLabel(t *testing.T) {
	for _, tc := range []struct {
		n    int
		want string
	}{
		{0, "0"}, {523, "523"}, {9999, "9999"}, {10_000, "10.0k"}, {12_345, "12.3k"},
		{99_949, "99.9k"}, {99_950, "100k"}, {374_900, "375k"}, {999_499, "999k"},
		{999_500, "1.00M"}, {1_005_600, "1.01M"}, {9_994_999, "9.99M"}, {38_896_370, "38.9M"}, {123_456_789, "123M"},
	} {
		if got := countLabel(tc.n); got != tc.want {
			t.Errorf("countLabel(%d) = %q, want %q", tc.n, got, tc.want)
		}
	}
}

func TestRegularTicks(t *testing.T) {
	for _, tc := range []struct {
		through, lo, hi float64
		want            string
	}{
		{1, 0.37, 2.7, "0.5 1.0 1.5 2.0 2.5"},
		{1, 0.55, 1.65, "0.75 1.00 1.25 1.50"},
		{1, 0.95, 1.05, "0.96 0.98 1.00 1.02 1.04"},
		{1, 0.8, 1.3, "0.8 0.9 1.0 1.1 1.2 1.3"},
		{0, 0, 100, "0 20 40 60 80 100"},
		{1, 0, 12, "0 5 10"},
		{1, 0.5, 55, "20 40"},
		{0, 0, 60, "0 20 40 60"},
	} {
		var got []string
		var step float64
		ticks := regularTicks{through: tc.through}.Ticks(tc.lo, tc.hi)
		for i, tk := range ticks {
			got = append(got, tk.Label)
			if i == 1 {
				step = tk.Value - ticks[0].Value
			} else if i > 1 && math.Abs(tk.Value-ticks[i-1].Value-step) > 1e-9 {
				t.Errorf("%+v: irregular ticks %v", tc, ticks)
			}
		}
		if strings.Join(got, " ") != tc.want {
			t.Errorf("ticks of %v on [%v, %v]: %v, want %s", tc.through, tc.lo, tc.hi, got, tc.want)
		}
	}
}

// TestPolicyStyle: a policy has one style whatever the figure, the known
// ones theirs, and no other policy takes a known one's.
func TestPolicyStyle(t *testing.T) {
	if got := policyStyle("graphcc"); got != knownStyles["graphcc"] || got.color != okabeGreen {
		t.Errorf("graphcc: %+v", got)
	}
	for _, name := range []string{"static:2,32,0.01", "graphcc:model.bin", "react:300:2,16,0.01:32,256,1", "low"} {
		got := policyStyle(name)
		if got != policyStyle(name) {
			t.Errorf("%s: two styles", name)
		}
		for known, st := range knownStyles {
			if got == st {
				t.Errorf("%s has %s's style", name, known)
			}
		}
	}
}

// TestEmptyBinLeftOut: a bin without flows (NaN ratio) is not drawn, and
// its neighbours are.
func TestEmptyBinLeftOut(t *testing.T) {
	nan := metrics.Ratio{Value: math.NaN()}
	pr := experiment.PolicyResult{Policy: "low", BinVsRef: []experiment.BinRatios{
		{P50: metrics.Ratio{Value: 1.5}}, {P50: nan}, {P50: metrics.Ratio{Value: 0.5, Lo: 0.4, Hi: 0.6}},
	}}
	p := newPanel(false)
	span, err := addRatios(p, pr, func(b experiment.BinRatios) metrics.Ratio { return b.P50 }, false)
	if err != nil {
		t.Fatal(err)
	}
	if span.lo != 0.4 || span.hi != 1.5 || span.bars != 1 {
		t.Errorf("drew %+v, want 0.4 to 1.5 with one error bar", span)
	}
}
