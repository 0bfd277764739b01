package topo

import "fmt"

// ParseDuration parses v, a time as ParseDelay reads it or a plain "0"
// (FormatDuration's zero), into ps, refusing zero unless zeroOK. name, what
// v was given as (a flag, "--link-delay"), heads its errors:
// `--link-delay 5: bad delay "5": missing unit (...)`.
func ParseDuration(name, v string, zeroOK bool) (int64, error) {
	var d int64
	if v != "0" {
		var err error
		if d, err = ParseDelay(v); err != nil {
			return 0, fmt.Errorf("%s %s: %w", name, v, err)
		}
	}
	if d == 0 && !zeroOK {
		return 0, fmt.Errorf("%s %s: must be positive", name, v)
	}
	return d, nil
}

// ParseLinkRate parses v, a rate as ParseRate reads it, into bps, refusing
// zero; name heads its errors as ParseDuration's.
func ParseLinkRate(name, v string) (int64, error) {
	r, err := ParseRate(v)
	if err != nil {
		return 0, fmt.Errorf("%s %s: %w", name, v, err)
	}
	if r <= 0 {
		return 0, fmt.Errorf("%s %s: must be positive", name, v)
	}
	return r, nil
}
