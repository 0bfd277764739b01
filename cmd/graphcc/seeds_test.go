package main

import (
	"slices"
	"testing"
)

func TestSeedsFlag(t *testing.T) {
	def := []uint64{1001, 1002}
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
	if want := []uint64{1, 2, 3, 4, 9, 11, 12, 13}; !slices.Equal(seeds, want) {
		t.Errorf("seeds %v, want %v (the first use replaces the default, later ones append)", seeds, want)
	}
	if !slices.Equal(def, []uint64{1001, 1002}) {
		t.Errorf("the default was modified: %v", def)
	}
	if got := f.String(); got != "1-4,9,11-13" {
		t.Errorf("String %q", got)
	}
	if err := f.Set("3-1"); err == nil {
		t.Error("a backwards range was accepted")
	}
}
