package experiment

import (
	"graphcc/metrics"
	"slices"
	"strings"
	"testing"
)

func TestParseSeeds(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want []uint64
		err  string
	}{
		{"1001,1002", []uint64{1001, 1002}, ""},
		{"1001-1005", []uint64{1001, 1002, 1003, 1004, 1005}, ""},
		{" 7 , 1-3,9-9 ", []uint64{7, 1, 2, 3, 9}, ""},
		{"0", []uint64{0}, ""},
		{"18446744073709551614-18446744073709551615", []uint64{18446744073709551614, 18446744073709551615}, ""},
		{"", nil, `empty seed in ""`},
		{"1,,2", nil, `empty seed in "1,,2"`},
		{"x", nil, `seed "x": not a whole number`},
		{"-3", nil, `seed "": not a whole number`},
		{"5-", nil, `seed "": not a whole number`},
		{"1-2-3", nil, `seed "2-3": not a whole number`},
		{"1010-1001", nil, "seed range 1010-1001 runs backwards"},
		{"1-10000", []uint64(nil), ""},
		{"1-10001", nil, "seed range 1-10001 holds more than 10000 seeds"},
		{"0-18446744073709551615", nil, "holds more than 10000 seeds"},
	} {
		got, err := ParseSeeds(tc.in)
		switch {
		case tc.err != "":
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("ParseSeeds(%q): error %v, want one containing %q", tc.in, err, tc.err)
			}
		case err != nil:
			t.Errorf("ParseSeeds(%q): %v", tc.in, err)
		case tc.want != nil && !slices.Equal(got, tc.want):
			t.Errorf("ParseSeeds(%q) = %v, want %v", tc.in, got, tc.want)
		}
	}
}

// TestEvalSeeds: the default seeds are the ten reserved evaluation seeds,
// enough for intervals, and training may use none of them.
func TestEvalSeeds(t *testing.T) {
	s := EvalSeeds()
	if len(s) < metrics.MinIntervalSeeds {
		t.Errorf("%d default seeds, fewer than the %d intervals need", len(s), metrics.MinIntervalSeeds)
	}
	for _, n := range s {
		if n < FirstEvalSeed || n > LastEvalSeed {
			t.Errorf("default seed %d outside the reserved %d-%d", n, FirstEvalSeed, LastEvalSeed)
		}
		if err := CheckTrainingSeeds([]uint64{2001, n}); err == nil || !strings.Contains(err.Error(), "one of eval's seeds (1001-1010)") {
			t.Errorf("CheckTrainingSeeds accepted %d: %v", n, err)
		}
	}
	if got := FormatSeeds(s); got != "1001-1010" {
		t.Errorf("FormatSeeds(EvalSeeds()) = %q", got)
	}
	for _, ok := range [][]uint64{nil, {1000, 1011, 2001}} {
		if err := CheckTrainingSeeds(ok); err != nil {
			t.Errorf("CheckTrainingSeeds(%v): %v", ok, err)
		}
	}
}

// FuzzParseSeeds: whatever parses writes back (FormatSeeds) to the same seeds.
func FuzzParseSeeds(f *testing.F) {
	for _, s := range []string{"1001,1002", "1-10,12", " 5 ", "3-3", "0-9999"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		seeds, err := ParseSeeds(in)
		if err != nil {
			return
		}
		back, err := ParseSeeds(FormatSeeds(seeds))
		if err != nil || !slices.Equal(back, seeds) {
			t.Fatalf("%q: %v wrote back as %v (%v)", in, seeds, back, err)
		}
	})
}
