package hostgen

import (
	"context"
	"math"
	"net/netip"
	"time"
)

// The testbed's veths have no propagation delay, and BMv2's own latency is
// far below the links' scaled delays, so a host emulates them: every frame
// it receives is handled (acknowledged, its ACK or CNP acted on) only after
// the one-way propagation delay of its path from its sender, fabric time.
// Round trips, the fixed window's reach and the time a CNP takes to reach
// its sender then match the simulator's. The switches still see every
// frame without delay, which shifts arrivals from paths of different
// lengths against each other by at most the difference of their delays.

// arrival is a received frame waiting for its path's delay to pass.
type arrival struct {
	due int64 // fabric ps
	f   Frame
}

// delayLine holds received frames until they are due. All frames of one
// sender share a delay and arrive in order, so each delay class is a FIFO
// whose head is its earliest; the line's next frame is the earliest head.
type delayLine struct {
	class map[netip.Addr]int // sender address -> class
	delay []int64            // per class, fabric ps
	q     [][]arrival        // per class, in order of arrival
}

// newDelayLine returns the delay line for frames from the given senders
// with their delays, or nil if every delay is 0.
func newDelayLine(delays map[netip.Addr]int64) *delayLine {
	l := &delayLine{class: make(map[netip.Addr]int)}
	byDelay := make(map[int64]int)
	for a, d := range delays {
		if d <= 0 {
			continue
		}
		c, ok := byDelay[d]
		if !ok {
			c = len(l.delay)
			byDelay[d] = c
			l.delay = append(l.delay, d)
			l.q = append(l.q, nil)
		}
		l.class[a] = c
	}
	if len(l.delay) == 0 {
		return nil
	}
	return l
}

// arrive returns frame f, received at fabric time now, as an arrival due
// after its sender's delay, and whether that delay is positive. It only
// reads the line's classes, so the receive loop may call it while the
// delay loop owns the queues.
func (l *delayLine) arrive(now int64, f *Frame) (arrival, bool) {
	c, ok := l.class[f.SrcIP]
	if !ok {
		return arrival{}, false
	}
	return arrival{due: now + l.delay[c], f: *f}, true
}

// push queues a, which arrive returned.
func (l *delayLine) push(a arrival) {
	c := l.class[a.f.SrcIP]
	l.q[c] = append(l.q[c], a)
}

// next returns the class of the earliest queued frame and its due time,
// or -1 and math.MaxInt64 if the line is empty.
func (l *delayLine) next() (int, int64) {
	best, due := -1, int64(math.MaxInt64)
	for c, q := range l.q {
		if len(q) > 0 && q[0].due < due {
			best, due = c, q[0].due
		}
	}
	return best, due
}

// pop removes and returns the head of class c.
func (l *delayLine) pop(c int) Frame {
	f := l.q[c][0].f
	l.q[c][0] = arrival{}
	l.q[c] = l.q[c][1:]
	if len(l.q[c]) == 0 {
		l.q[c] = l.q[c][:0:0] // let the backing array go once drained
	}
	return f
}

// delayLoop handles the frames the receive loop hands it on in, each once
// its path's delay has passed, until ctx is done.
func (h *Host) delayLoop(ctx context.Context, conn frameConn, clock *Clock, tmpl Frame, l *delayLine, in <-chan arrival) error {
	enc := NewEncoder()
	reply := tmpl
	timer := time.NewTimer(time.Hour)
	timer.Stop()
	defer timer.Stop()
	for {
		c, due := l.next()
		for now := clock.Now(); c >= 0 && due <= now; now = clock.Now() {
			f := l.pop(c)
			if err := h.handle(conn, enc, &reply, &f, now); err != nil {
				return err
			}
			c, due = l.next()
		}
		if c >= 0 {
			timer.Reset(clock.Real(due - clock.Now()))
		}
		select {
		case a := <-in:
			l.push(a)
		case <-timer.C:
		case <-ctx.Done():
			return nil
		}
	}
}
