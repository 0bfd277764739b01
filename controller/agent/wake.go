package agent

import (
	"context"
	"time"

	"golang.org/x/sys/unix"
)

// wakeSlack is how long before a step is due an agent's timer fires; the
// agent sleeps the rest in clock_nanosleep. Go's timers wait in epoll,
// whose timeout counts whole milliseconds, so a timer alone fires up to a
// millisecond late (0.65 ms on mean on the 2-core testbed machine), by a
// different amount in each agent, and every agent's round 1 waits for its
// latest neighbour (docs/testbed.md, "Where a round's time goes").
const wakeSlack = 2 * time.Millisecond

// sleepUntil waits until due on timer (stopped or drained) and then in
// clock_nanosleep for at most the last wakeSlack, which ctx does not cut
// short. It returns false if ctx ended first.
func sleepUntil(ctx context.Context, timer *time.Timer, due time.Time) bool {
	timer.Reset(time.Until(due) - wakeSlack)
	select {
	case <-ctx.Done():
		return false
	case <-timer.C:
	}
	for d := time.Until(due); d > 0; d = time.Until(due) {
		ts := unix.NsecToTimespec(d.Nanoseconds())
		_ = unix.ClockNanosleep(unix.CLOCK_MONOTONIC, 0, &ts, nil) // EINTR: the loop sleeps the rest
	}
	return true
}
