package agent

import (
	"context"
	"testing"
	"time"
)

// sleepUntil returns at due or after it, never before, whether due is
// past, within wakeSlack or beyond it; it returns false once ctx has ended.
func TestSleepUntil(t *testing.T) {
	timer := time.NewTimer(time.Hour)
	timer.Stop()
	for _, in := range []time.Duration{-time.Millisecond, 0, 300 * time.Microsecond, wakeSlack / 2, wakeSlack + 3*time.Millisecond} {
		due := time.Now().Add(in)
		if !sleepUntil(context.Background(), timer, due) {
			t.Fatalf("due in %v: ended early", in)
		}
		if now := time.Now(); now.Before(due) {
			t.Errorf("due in %v: returned %v before it", in, due.Sub(now))
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if sleepUntil(ctx, timer, time.Now().Add(time.Hour)) {
		t.Error("an ended context: sleepUntil returned true")
	}
}
