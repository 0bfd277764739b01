package workload

import (
	"math"
	"strconv"
	"strings"
	"testing"
)

// TestMix: a mixture's mean is the weighted mean of its parts', its points
// are a valid CDF, and it samples each part in proportion to its weight.
func TestMix(t *testing.T) {
	var cdfs []*CDF
	for _, n := range Names() {
		c, err := Builtin(n)
		if err != nil {
			t.Fatal(err)
		}
		cdfs = append(cdfs, c)
	}
	cdfs = append(cdfs, pointCDF("point", 5000), &CDF{Name: "jump", Points: []CDFPoint{{100, 0}, {100, 40}, {200, 40}, {300, 100}}})
	weights := []float64{1, 0.5, 2, 3, 0.25, 1}
	m, err := Mix("mix", cdfs, weights)
	if err != nil {
		t.Fatal(err)
	}
	want, total := 0.0, 0.0
	for i, c := range cdfs {
		want += weights[i] * c.Mean()
		total += weights[i]
	}
	want /= total
	if got := m.Mean(); math.Abs(got-want)/want > 1e-9 {
		t.Errorf("mean %v, want %v", got, want)
	}
	var text strings.Builder
	for _, p := range m.Points {
		text.WriteString(strconvFloat(p.Bytes) + " " + strconvFloat(p.Percent) + "\n")
	}
	if _, err := ReadCDF(strings.NewReader(text.String()), "mix"); err != nil {
		t.Errorf("the mixture is not a valid CDF: %v", err)
	}
	// One part alone is itself.
	one, err := Mix("one", cdfs[5:], []float64{2})
	if err != nil {
		t.Fatal(err)
	}
	if len(one.Points) != 4 || one.Points[1] != (CDFPoint{100, 40}) || one.Points[2] != (CDFPoint{200, 40}) {
		t.Errorf("a mixture of one CDF: %v", one.Points)
	}
	// Two point masses: 3 flows of 1000 B for every flow of 9000 B.
	two, err := Mix("two", []*CDF{pointCDF("a", 1000), pointCDF("b", 9000)}, []float64{3, 1})
	if err != nil {
		t.Fatal(err)
	}
	if got := two.percentAt(1000); got != 75 {
		t.Errorf("75 %% of flows at 1000 B, got %v (%v)", got, two.Points)
	}
	for _, bad := range []struct {
		cdfs    []*CDF
		weights []float64
	}{
		{nil, nil},
		{cdfs[:1], []float64{1, 2}},
		{cdfs[:1], []float64{-1}},
		{cdfs[:1], []float64{0}},
		{cdfs[:1], []float64{math.NaN()}},
		{[]*CDF{{Name: "empty"}}, []float64{1}},
	} {
		if _, err := Mix("bad", bad.cdfs, bad.weights); err == nil {
			t.Errorf("Mix(%d CDFs, %v) accepted", len(bad.cdfs), bad.weights)
		}
	}
}

func strconvFloat(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }
