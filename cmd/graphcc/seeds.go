package main

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// maxSeedRange is the most seeds one range A-B of a seeds flag may hold.
const maxSeedRange = 10_000

// seedsFlag is a flag of seeds given as comma-separated numbers and
// inclusive ranges, "1001-1010,2001". Like pflag's slice flags, the first
// use replaces the default and later uses append.
type seedsFlag struct {
	seeds   *[]uint
	changed bool
}

// newSeedsFlag returns the flag value that sets *seeds.
func newSeedsFlag(seeds *[]uint) *seedsFlag { return &seedsFlag{seeds: seeds} }

func (f *seedsFlag) Set(v string) error {
	s, err := parseSeeds(v)
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

// String writes the seeds as Set reads them (formatSeeds).
func (f *seedsFlag) String() string {
	if f.seeds == nil {
		return ""
	}
	return formatSeeds(*f.seeds)
}

// formatSeeds writes seeds comma-separated, runs of three or more
// consecutive seeds as ranges: "1001-1010,2001".
func formatSeeds[T uint | uint64](s []T) string {
	var parts []string
	for i := 0; i < len(s); {
		j := i
		for j+1 < len(s) && s[j+1] == s[j]+1 {
			j++
		}
		switch {
		case j-i >= 2:
			parts = append(parts, fmt.Sprintf("%d-%d", s[i], s[j]))
		default:
			for _, v := range s[i : j+1] {
				parts = append(parts, strconv.FormatUint(uint64(v), 10))
			}
		}
		i = j + 1
	}
	return strings.Join(parts, ",")
}

// parseSeeds reads comma-separated seeds and inclusive ranges A-B.
func parseSeeds(v string) ([]uint, error) {
	var out []uint
	for item := range strings.SplitSeq(v, ",") {
		item = strings.TrimSpace(item)
		if item == "" {
			return nil, fmt.Errorf("empty seed in %q", v)
		}
		lo, hi, isRange := strings.Cut(item, "-")
		a, err := parseSeed(lo)
		if err != nil {
			return nil, err
		}
		if !isRange {
			out = append(out, a)
			continue
		}
		b, err := parseSeed(hi)
		if err != nil {
			return nil, err
		}
		switch {
		case b < a:
			return nil, fmt.Errorf("seed range %s runs backwards", item)
		case b-a >= maxSeedRange:
			return nil, fmt.Errorf("seed range %s holds more than %d seeds", item, maxSeedRange)
		}
		for s := a; ; s++ {
			out = append(out, s)
			if s == b {
				break
			}
		}
	}
	return out, nil
}

// parseSeed reads one seed, a decimal number.
func parseSeed(v string) (uint, error) {
	n, err := strconv.ParseUint(strings.TrimSpace(v), 10, strconv.IntSize)
	if err != nil {
		return 0, fmt.Errorf("seed %q: not a whole number from 0 to %d", v, uint(math.MaxUint))
	}
	return uint(n), nil
}
