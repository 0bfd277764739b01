package main

import "graphcc/experiment"

// seedsFlag is a flag of seeds given as comma-separated numbers and
// inclusive ranges, "1001-1010,2001" (experiment.ParseSeeds). Like pflag's
// slice flags, the first use replaces the default and later uses append.
type seedsFlag struct {
	seeds   *[]uint64
	changed bool
}

// newSeedsFlag returns the flag value that sets *seeds.
func newSeedsFlag(seeds *[]uint64) *seedsFlag { return &seedsFlag{seeds: seeds} }

func (f *seedsFlag) Set(v string) error {
	s, err := experiment.ParseSeeds(v)
	if err != nil {
		return err
	}
	if !f.changed {
		*f.seeds, f.changed = nil, true
	}
	*f.seeds = append(*f.seeds, s...)
	return nil
}

func (f *seedsFlag) Type() string { return "seeds" }

// String writes the seeds as Set reads them (experiment.FormatSeeds).
func (f *seedsFlag) String() string {
	if f.seeds == nil {
		return ""
	}
	return experiment.FormatSeeds(*f.seeds)
}
