package control

import (
	"fmt"

	"graphcc/topo"
)

// DefaultInterval is the control interval Δt of the GraphCC setup: 100 µs.
const DefaultInterval = 100 * topo.Microsecond

// MinInterval is the shortest control interval ParseInterval takes: every
// port is sampled (and, for the learned policies, every agent decides) once
// per interval, so a picosecond interval would run out of memory or never
// end.
const MinInterval = topo.Microsecond

// ParseInterval parses a control interval v (topo.ParseDuration), at least
// MinInterval, in ps; name (a flag, "--interval") heads its errors.
func ParseInterval(name, v string) (int64, error) {
	d, err := topo.ParseDuration(name, v, false)
	if err == nil && d < MinInterval {
		err = fmt.Errorf("%s %s: must be at least %s: every port is sampled every interval", name, v, topo.FormatDuration(MinInterval))
	}
	return d, err
}
