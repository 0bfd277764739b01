package dcqcn

import (
	"container/heap"
	"math"
)

// refModel is a literal transcription of HPCC's rdma-hw.cc Mellanox DCQCN
// (CC_MODE 1) on a tiny ns-3-like scheduler: every timer is a discrete event
// at every grid point, and events at equal times run in insertion order, as
// ns-3's default scheduler does. A CNP at time t runs after every event
// before t and before every event at t (the package's documented order).
type refModel struct {
	p    Params
	line int64

	rate, target          int64
	alpha                 float64
	alphaFlag, decFlag    bool
	firstCNP              bool
	stage                 int
	q                     evHeap
	seq                   uint64
	alphaEv, decEv, incEv uint64 // seq of the live event of each kind, 0 = none
	now                   int64
	events                int
}

const (
	kindAlpha = iota
	kindDec
	kindInc
)

type refEvent struct {
	t    int64
	seq  uint64
	kind int
}

type evHeap []refEvent

func (h evHeap) Len() int { return len(h) }
func (h evHeap) Less(i, j int) bool {
	if h[i].t != h[j].t {
		return h[i].t < h[j].t
	}
	return h[i].seq < h[j].seq
}
func (h evHeap) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *evHeap) Push(x any)   { *h = append(*h, x.(refEvent)) }
func (h *evHeap) Pop() any {
	old := *h
	e := old[len(old)-1]
	*h = old[:len(old)-1]
	return e
}

func newRef(p Params, line int64) *refModel {
	return &refModel{p: p, line: line, rate: line, target: line, alpha: 1, firstCNP: true, now: math.MinInt64}
}

// schedule mirrors Simulator::Schedule; the returned EventId replaces the
// kind's previous one (like assigning q->mlx.m_event... = Schedule(...)).
func (m *refModel) schedule(kind int, t int64) {
	m.seq++
	heap.Push(&m.q, refEvent{t: t, seq: m.seq, kind: kind})
	switch kind {
	case kindAlpha:
		m.alphaEv = m.seq
	case kindDec:
		m.decEv = m.seq
	case kindInc:
		m.incEv = m.seq
	}
}

func (m *refModel) live(e refEvent) bool {
	switch e.kind {
	case kindAlpha:
		return e.seq == m.alphaEv
	case kindDec:
		return e.seq == m.decEv
	default:
		return e.seq == m.incEv
	}
}

// runUntil runs every event at or before t.
func (m *refModel) runUntil(t int64) {
	for m.q.Len() > 0 && m.q[0].t <= t {
		e := heap.Pop(&m.q).(refEvent)
		if !m.live(e) {
			continue // cancelled
		}
		m.now = e.t
		m.events++
		switch e.kind {
		case kindAlpha:
			m.updateAlpha()
		case kindDec:
			m.checkRateDecrease()
		case kindInc:
			m.rateIncEventTimer()
		}
	}
	if t > m.now {
		m.now = t
	}
}

// cnp mirrors cnp_received_mlx for a CNP at t.
func (m *refModel) cnp(t int64) {
	m.runUntil(t - 1)
	m.now = t
	m.alphaFlag = true
	m.decFlag = true
	if m.firstCNP {
		m.alpha = 1
		m.alphaFlag = false
		m.schedule(kindAlpha, m.now+m.p.AlphaInterval)
		m.schedule(kindDec, m.now+m.p.DecreaseInterval+m.p.FirstDecreaseDelay)
		m.rate = int64(m.p.RateOnFirstCNP * float64(m.rate))
		m.target = m.rate
		m.firstCNP = false
	}
}

// updateAlpha mirrors UpdateAlphaMlx.
func (m *refModel) updateAlpha() {
	if m.alphaFlag {
		m.alpha = float64((1-m.p.G)*m.alpha) + m.p.G
	} else {
		m.alpha = (1 - m.p.G) * m.alpha
	}
	m.alphaFlag = false
	m.schedule(kindAlpha, m.now+m.p.AlphaInterval)
}

// checkRateDecrease mirrors CheckRateDecreaseMlx.
func (m *refModel) checkRateDecrease() {
	m.schedule(kindDec, m.now+m.p.DecreaseInterval)
	if m.decFlag {
		clamp := true
		if !m.p.ClampTarget && m.stage == 0 {
			clamp = false
		}
		if clamp {
			m.target = m.rate
		}
		m.rate = max(m.p.MinRate, int64(float64(m.rate)*(1-m.alpha/2)))
		m.stage = 0
		m.decFlag = false
		m.incEv = 0 // Simulator::Cancel(q->mlx.m_rpTimer)
		m.schedule(kindInc, m.now+m.p.IncreaseInterval)
	}
}

// rateIncEventTimer mirrors RateIncEventTimerMlx and RateIncEventMlx.
func (m *refModel) rateIncEventTimer() {
	m.schedule(kindInc, m.now+m.p.IncreaseInterval)
	switch {
	case m.stage < m.p.FastRecoveryTimes:
		m.rate = m.rate/2 + m.target/2
	case m.stage == m.p.FastRecoveryTimes:
		m.target += m.p.AI
		if m.target > m.line {
			m.target = m.line
		}
		m.rate = m.rate/2 + m.target/2
	default:
		m.target += m.p.HAI
		if m.target > m.line {
			m.target = m.line
		}
		m.rate = m.rate/2 + m.target/2
	}
	m.stage++
}
