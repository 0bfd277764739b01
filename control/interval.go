package control

import (
	"graphcc/topo"
)

// DefaultInterval is the control interval Δt of the GraphCC setup: 100 µs.
const DefaultInterval = 100 * topo.Microsecond
