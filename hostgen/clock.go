package hostgen

import (
	"fmt"
	"math"
	"time"
)

// Clock is the testbed's fabric time. The testbed scales every rate down and
// every time up by one factor, Scale (docs/testbed.md): fabric time is
// the real time elapsed since Start divided by Scale, in picoseconds, so
// that hosts compute pacing, windows, DCQCN timers and FCTs with the
// simulator's unscaled constants and report FCTs comparable with it. Every
// host of a testbed shares one Clock. A Clock is immutable and safe for
// concurrent use.
type Clock struct {
	start time.Time
	scale float64
}

// NewClock returns the clock whose fabric time 0 is the instant start and
// whose fabric time runs scale times slower than real time. scale must be
// positive and finite. To run a trace whose first flow starts at fabric
// time t0 (flow files start at 2 s) without waiting for it, pass
// start = time.Now().Add(-Real(t0)) of a clock with the same scale.
func NewClock(start time.Time, scale float64) (*Clock, error) {
	if !(scale > 0) || math.IsInf(scale, 1) {
		return nil, fmt.Errorf("clock: scale %v must be positive and finite", scale)
	}
	return &Clock{start: start, scale: scale}, nil
}

// Scale returns the factor between real and fabric time.
func (c *Clock) Scale() float64 { return c.scale }

// Start returns the real instant of fabric time 0.
func (c *Clock) Start() time.Time { return c.start }

// Now returns the current fabric time, ps (negative before Start).
func (c *Clock) Now() int64 { return c.Fabric(time.Since(c.start)) }

// Fabric returns the fabric duration, ps, of real duration d.
func (c *Clock) Fabric(d time.Duration) int64 {
	return int64(float64(d) * 1000 / c.scale)
}

// Real returns the real duration of fabric duration ps, rounded up to a
// nanosecond.
func (c *Clock) Real(ps int64) time.Duration {
	return time.Duration(math.Ceil(float64(ps) * c.scale / 1000))
}

// At returns the real instant of fabric time t.
func (c *Clock) At(t int64) time.Time { return c.start.Add(c.Real(t)) }
