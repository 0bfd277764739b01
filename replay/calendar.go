package replay

import "math/bits"

// calendar is the simulator's event queue: a calendar queue (Brown, 1988)
// for the next calBuckets*2^shift picoseconds, with a 4-ary heap for events
// beyond that window. The bucket width shrinks as the fabric grows (events
// per picosecond grow with its ports), keeping most buckets empty or
// holding one event. Each source has at most one pending event; sources
// are kept in intrusive doubly linked lists per bucket, sorted by
// (time, scheduling order), so arming costs a walk of one bucket (a few
// events at the loads the simulator runs), cancelling O(1), and finding the
// next event a bitmap scan. Ties between equal times go to the earlier
// scheduled event, as in the heap.
type calendar struct {
	e []calEntry // per source

	shift uint                     // log2 of the bucket width in ps
	head  *[calBuckets]int32       // per bucket: first source, or -1
	bits  *[calBuckets / 64]uint64 // bit b set when bucket b is not empty
	cur   int64                    // absolute bucket (time >> c.shift) of the window's start
	inCal int                      // events in buckets
	far   eventQueue
	seqc  uint32
	n     int
}

// calEntry is a source's pending event and its place in the calendar.
type calEntry struct {
	at    int64  // time of the pending event
	seq   uint32 // scheduling order of the pending event
	next  int32  // next source in its bucket, or -1
	prev  int32  // previous source in its bucket, or -1
	where int32  // bucket, or noEvent, or inFar
}

const (
	calBuckets = 1 << 16
	calMask    = calBuckets - 1
	noEvent    = -1
	inFar      = -2
)

// init sizes the calendar for sources sources on a fabric of ports ports.
func (c *calendar) init(sources, ports int) {
	// 512 ps buckets (a 33.5 µs window) for the 64 ports of the GraphCC
	// Clos, halved for every doubling of the ports, down to 64 ps. Narrow
	// buckets keep most insertions off the sorted walk: 512 ps ran the
	// benchmark 10 to 15 % faster than 4 ns, and 256 ps no faster.
	c.shift = 9
	for p := 64; p < ports && c.shift > 6; p *= 2 {
		c.shift--
	}
	c.e = make([]calEntry, sources)
	for i := range c.e {
		c.e[i].where = noEvent
	}
	c.head = new([calBuckets]int32)
	for i := range c.head {
		c.head[i] = -1
	}
	c.bits = new([calBuckets / 64]uint64)
	c.far.init(sources)
}

// grow adds one source.
func (c *calendar) grow() {
	c.e = append(c.e, calEntry{where: noEvent})
	c.far.pos = append(c.far.pos, -1)
}

// link inserts src, whose entry is e, into bucket b, keeping the bucket
// sorted by (at, seq) so that its head is its earliest event.
func (c *calendar) link(e *calEntry, src, b int32) {
	e.where = b
	c.inCal++
	next := c.head[b&calMask]
	if next < 0 {
		// an empty bucket, the common case
		e.prev, e.next = -1, -1
		c.head[b&calMask] = src
		c.bits[(b>>6)&(calBuckets/64-1)] |= 1 << (b & 63)
		return
	}
	prev := int32(-1)
	for next >= 0 {
		n := &c.e[next]
		if e.at < n.at || (e.at == n.at && int32(e.seq-n.seq) < 0) {
			n.prev = src
			break
		}
		prev, next = next, n.next
	}
	e.prev, e.next = prev, next
	if prev >= 0 {
		c.e[prev].next = src
	} else {
		c.head[b&calMask] = src
	}
}

// unlink takes the entry e out of its bucket.
func (c *calendar) unlink(e *calEntry) {
	b, n, p := e.where, e.next, e.prev
	if p >= 0 {
		c.e[p].next = n
	} else {
		c.head[b&calMask] = n
		if n < 0 {
			c.bits[(b>>6)&(calBuckets/64-1)] &^= 1 << (b & 63)
		}
	}
	if n >= 0 {
		c.e[n].prev = p
	}
	c.inCal--
}

// place puts src, whose entry e has at and seq set, into its bucket or the
// far heap.
func (c *calendar) place(e *calEntry, src int32) {
	b := max(e.at>>(c.shift&63), c.cur) // never before the window
	if b-c.cur < calBuckets {
		c.link(e, src, int32(b&calMask))
		return
	}
	e.where = inFar
	c.far.h = append(c.far.h, event{})
	c.far.up(len(c.far.h)-1, event{at: e.at, seq: e.seq, src: src})
}

// remove takes src's pending event out of the queue.
func (c *calendar) remove(src int32) {
	e := &c.e[src]
	switch w := e.where; {
	case w >= 0:
		c.unlink(e)
	case w == inFar:
		c.far.cancel(src)
	default:
		return
	}
	e.where = noEvent
	c.n--
}

// schedule arms src at time at (not before the current event), replacing
// its pending event if it has one. It repeats remove's switch rather than
// sharing a helper with it: such a helper is over the inlining budget, and
// the call cost the benchmark 1 to 2 % (2026-12-04).
func (c *calendar) schedule(src int32, at int64) {
	e := &c.e[src]
	switch w := e.where; {
	case w >= 0:
		c.unlink(e)
	case w == inFar:
		c.far.cancel(src)
	default:
		c.n++
	}
	c.seqc++
	e.at, e.seq = at, c.seqc
	c.place(e, src)
}

// pending returns the time of src's pending event and whether it has one.
func (c *calendar) pending(src int32) (int64, bool) {
	if c.e[src].where == noEvent {
		return 0, false
	}
	return c.e[src].at, true
}

func (c *calendar) cancel(src int32) { c.remove(src) }

func (c *calendar) len() int { return c.n }

// advance moves the window start to absolute bucket b and pulls in the far
// events that the window now covers.
func (c *calendar) advance(b int64) {
	c.cur = b
	for len(c.far.h) > 0 && c.far.h[0].at>>(c.shift&63)-c.cur < calBuckets {
		e := c.far.pop()
		c.link(&c.e[e.src], e.src, int32((e.at>>(c.shift&63))&calMask))
	}
}

// pop removes and returns the earliest pending event; its handler may arm
// its source again.
func (c *calendar) pop() (event, bool) {
	if c.n == 0 {
		return event{}, false
	}
	if c.inCal == 0 {
		c.advance(c.far.h[0].at >> (c.shift & 63))
	}
	// the first non-empty bucket at or after the window start
	i := int(c.cur & calMask)
	w := i >> 6
	word := c.bits[w&(calBuckets/64-1)] &^ (1<<(i&63) - 1)
	for word == 0 {
		w = (w + 1) & (calBuckets/64 - 1)
		word = c.bits[w]
	}
	b := w<<6 | bits.TrailingZeros64(word)
	if d := (b - i) & calMask; d != 0 {
		c.advance(c.cur + int64(d))
	}
	b &= calMask
	src := c.head[b&calMask] // buckets are sorted: the head is the earliest
	x := &c.e[src]
	n := x.next
	c.head[b&calMask] = n
	if n >= 0 {
		c.e[n].prev = -1
	} else {
		c.bits[(b>>6)&(calBuckets/64-1)] &^= 1 << (b & 63)
	}
	x.where = noEvent
	c.inCal--
	c.n--
	return event{at: x.at, seq: x.seq, src: src}, true
}
