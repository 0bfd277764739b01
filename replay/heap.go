package replay

// An event is a pending action of one source at one time. Every source (a
// port, a link direction, a flow's timers, the flow arrivals, the control
// clock) has at most one pending event; re-arming it moves the entry in
// place. seq breaks ties between equal times in scheduling order, so runs
// repeat bit for bit.
//
// seq is 32 bits so that an event is 16 bytes and the four children of a
// heap node share one cache line; it is compared modulo 2^32, which is exact
// as long as two events of the same time are scheduled fewer than 2^31
// events apart.
type event struct {
	at  int64
	seq uint32
	src int32
}

func (a *event) before(b *event) bool {
	return a.at < b.at || (a.at == b.at && int32(a.seq-b.seq) < 0)
}

// eventQueue is a typed 4-ary min-heap of events keyed on (at, seq), with the
// heap index of every source kept in pos so that re-arming is a fix. The
// calendar keeps its far-future events in one. The
// sifts move a hole instead of swapping (as runtime/time.go's timer heap).
type eventQueue struct {
	h   []event
	pos []int32 // per source: index in h, or -1
	seq uint32
}

func (q *eventQueue) init(sources int) {
	q.h = make([]event, 0, 256)
	q.pos = make([]int32, sources)
	for i := range q.pos {
		q.pos[i] = -1
	}
}

// up places e at the hole i or above it.
func (q *eventQueue) up(i int, e event) {
	for i > 0 {
		p := (i - 1) / 4
		if !e.before(&q.h[p]) {
			break
		}
		q.h[i] = q.h[p]
		q.pos[q.h[i].src] = int32(i)
		i = p
	}
	q.h[i] = e
	q.pos[e.src] = int32(i)
}

// down places e at the hole i or below it.
func (q *eventQueue) down(i int, e event) {
	h := q.h
	n := len(h)
	for {
		c := 4*i + 1
		if c >= n {
			break
		}
		m := c
		end := min(c+4, n)
		for k := c + 1; k < end; k++ {
			if h[k].before(&h[m]) {
				m = k
			}
		}
		if !h[m].before(&e) {
			break
		}
		h[i] = h[m]
		q.pos[h[i].src] = int32(i)
		i = m
	}
	h[i] = e
	q.pos[e.src] = int32(i)
}

// fix re-places the entry at i after its key changed.
func (q *eventQueue) fix(i int) {
	e := q.h[i]
	if i > 0 && e.before(&q.h[(i-1)/4]) {
		q.up(i, e)
	} else {
		q.down(i, e)
	}
}

// schedule arms src at time at, replacing its pending event if it has one.
func (q *eventQueue) schedule(src int32, at int64) {
	q.seq++
	if i := q.pos[src]; i >= 0 {
		q.h[i].at, q.h[i].seq = at, q.seq
		q.fix(int(i))
		return
	}
	q.h = append(q.h, event{})
	q.up(len(q.h)-1, event{at: at, seq: q.seq, src: src})
}

// pending returns the time of src's pending event and whether it has one.
func (q *eventQueue) pending(src int32) (int64, bool) {
	if i := q.pos[src]; i >= 0 {
		return q.h[i].at, true
	}
	return 0, false
}

// cancel removes src's pending event, if any.
func (q *eventQueue) cancel(src int32) {
	i := int(q.pos[src])
	if i < 0 {
		return
	}
	q.pos[src] = -1
	n := len(q.h) - 1
	last := q.h[n]
	q.h = q.h[:n]
	if i < n {
		q.h[i] = last
		q.fix(i)
	}
}

// pop removes and returns the earliest event. The queue must not be empty.
func (q *eventQueue) pop() event {
	e := q.h[0]
	q.pos[e.src] = -1
	n := len(q.h) - 1
	last := q.h[n]
	q.h = q.h[:n]
	if n > 0 {
		q.down(0, last)
	}
	return e
}

func (q *eventQueue) len() int { return len(q.h) }
