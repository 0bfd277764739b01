package main

import (
	"slices"
	"strings"
	"testing"
)

func TestParseSeeds(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want []uint
		err  string
	}{
		{"1001,1002", []uint{1001, 1002}, ""},
		{"1001-1005", []uint{1001, 1002, 1003, 1004, 1005}, ""},
		{" 7 , 1-3,9-9 ", []uint{7, 1, 2, 3, 9}, ""},
		{"0", []uint{0}, ""},
		{"18446744073709551614-18446744073709551615", []uint{18446744073709551614, 18446744073709551615}, ""},
		{"", nil, `empty seed in ""`},
		{"1,,2", nil, `empty seed in "1,,2"`},
		{"x", nil, `seed "x": not a whole number`},
		{"-3", nil, `seed "": not a whole number`},
		{"5-", nil, `seed "": not a whole number`},
		{"1-2-3", nil, `seed "2-3": not a whole number`},
		{"1010-1001", nil, "seed range 1010-1001 runs backwards"},
		{"1-10000", []uint(nil), ""},
		{"1-10001", nil, "seed range 1-10001 holds more than 10000 seeds"},
		{"0-18446744073709551615", nil, "holds more than 10000 seeds"},
	} {
		got, err := parseSeeds(tc.in)
		switch {
		case tc.err != "":
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("parseSeeds(%q): error %v, want one containing %q", tc.in, err, tc.err)
			}
		case err != nil:
			t.Errorf("parseSeeds(%q): %v", tc.in, err)
		case tc.want != nil && !slices.Equal(got, tc.want):
			t.Errorf("parseSeeds(%q) = %v, want %v", tc.in, got, tc.want)
		}
	}
}

func TestSeedsFlag(t *testing.T) {
	def := []uint{1001, 1002}
	seeds := def
	f := newSeedsFlag(&seeds)
	if got := f.String(); got != "1001,1002" {
		t.Errorf("default shows as %q", got)
	}
	for _, v := range []string{"1-4", "9,11-13"} {
		if err := f.Set(v); err != nil {
			t.Fatal(err)
		}
	}
	if want := []uint{1, 2, 3, 4, 9, 11, 12, 13}; !slices.Equal(seeds, want) {
		t.Errorf("seeds %v, want %v (the first use replaces the default, later ones append)", seeds, want)
	}
	if !slices.Equal(def, []uint{1001, 1002}) {
		t.Errorf("the default was modified: %v", def)
	}
	if got := f.String(); got != "1-4,9,11-13" {
		t.Errorf("String %q", got)
	}
	if err := f.Set("3-1"); err == nil {
		t.Error("a backwards range was accepted")
	}
}

// FuzzParseSeeds: whatever parses writes back (String) to the same seeds.
func FuzzParseSeeds(f *testing.F) {
	for _, s := range []string{"1001,1002", "1-10,12", " 5 ", "3-3", "0-9999"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		seeds, err := parseSeeds(in)
		if err != nil {
			return
		}
		back, err := parseSeeds(newSeedsFlag(&seeds).String())
		if err != nil || !slices.Equal(back, seeds) {
			t.Fatalf("%q: %v wrote back as %v (%v)", in, seeds, back, err)
		}
	})
}
