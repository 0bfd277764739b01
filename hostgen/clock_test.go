package hostgen

import (
	"math"
	"testing"
	"time"
)

func TestClock(t *testing.T) {
	for _, s := range []float64{0, -1, math.NaN(), math.Inf(1)} {
		if _, err := NewClock(time.Now(), s); err == nil {
			t.Errorf("scale %v accepted", s)
		}
	}
	start := time.Now().Add(-time.Second)
	c, err := NewClock(start, 100)
	if err != nil {
		t.Fatal(err)
	}
	if got := c.Fabric(time.Millisecond); got != 10*us {
		t.Errorf("1 ms real is %d ps of fabric time, want 10 µs", got)
	}
	if got := c.Real(10 * us); got != time.Millisecond {
		t.Errorf("10 µs of fabric time is %v real, want 1 ms", got)
	}
	if got := c.Real(1); got != time.Nanosecond {
		t.Errorf("1 ps of fabric time is %v real, want 1 ns (rounded up)", got)
	}
	if !c.At(10 * us).Equal(start.Add(time.Millisecond)) {
		t.Errorf("At(10 µs) = %v", c.At(10*us))
	}
	// a second has passed: at least 10 ms of fabric time
	if a, b := c.Now(), c.Now(); a < 10_000*us || b < a {
		t.Errorf("Now %d then %d", a, b)
	}
}
