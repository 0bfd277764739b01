package experiment

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// The evaluation's seeds: an evaluation runs FirstEvalSeed to LastEvalSeed
// by default (ten seeds, so that every ratio carries an interval), and no
// training or model selection may use them (CheckTrainingSeeds): training
// draws its episodes from seeds derived from its own, and acc trained on
// the spot from a seed derived from the scenario's name.
const (
	FirstEvalSeed = 1001
	LastEvalSeed  = 1010
)

// EvalSeeds returns the evaluation's default seeds, FirstEvalSeed to
// LastEvalSeed.
func EvalSeeds() []uint64 {
	var s []uint64
	for n := uint64(FirstEvalSeed); n <= LastEvalSeed; n++ {
		s = append(s, n)
	}
	return s
}

// CheckTrainingSeeds refuses seeds that training or model selection (such
// as validation runs) would see, if one of them is an evaluation seed.
func CheckTrainingSeeds(seeds []uint64) error {
	for _, s := range seeds {
		if s >= FirstEvalSeed && s <= LastEvalSeed {
			return fmt.Errorf("%d is one of eval's seeds (%d-%d), which no training or selection may see; use others, such as 2001,2002", s, FirstEvalSeed, LastEvalSeed)
		}
	}
	return nil
}

// MaxSeedRange is the most seeds one range A-B of ParseSeeds may hold.
const MaxSeedRange = 10_000

// ParseSeeds reads seeds given as comma-separated numbers and inclusive
// ranges A-B: "1001-1010,2001".
func ParseSeeds(v string) ([]uint64, error) {
	var out []uint64
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
		case b-a >= MaxSeedRange:
			return nil, fmt.Errorf("seed range %s holds more than %d seeds", item, MaxSeedRange)
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
func parseSeed(v string) (uint64, error) {
	n, err := strconv.ParseUint(strings.TrimSpace(v), 10, 64)
	if err != nil {
		return 0, fmt.Errorf("seed %q: not a whole number from 0 to %d", v, uint64(math.MaxUint64))
	}
	return n, nil
}

// FormatSeeds writes seeds as ParseSeeds reads them, comma-separated, runs
// of three or more consecutive seeds as ranges: "1001-1010,2001".
func FormatSeeds(s []uint64) string {
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
				parts = append(parts, strconv.FormatUint(v, 10))
			}
		}
		i = j + 1
	}
	return strings.Join(parts, ",")
}
