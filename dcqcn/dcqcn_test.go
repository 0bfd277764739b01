package dcqcn

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

const line25 = 25 * Gbps

func newSender(p *Params, line int64) *Sender {
	s := new(Sender)
	s.Reset(p, line)
	return s
}

// exactDecay returns p with every alpha decay done by repeated
// multiplication (no math.Pow), bit-identical to the reference model.
func exactDecay(p Params) Params {
	p.exactSteps = math.MaxInt64
	return p
}

func TestDefaultParams(t *testing.T) {
	for _, tc := range []struct {
		line, ai, hai int64
	}{
		{25 * Gbps, 5 * Mbps, 50 * Mbps},
		{100 * Gbps, 20 * Mbps, 200 * Mbps},
		{10 * Gbps, 2 * Mbps, 20 * Mbps},
		{400 * Gbps, 80 * Mbps, 800 * Mbps},
		{3_000_000_000_000, 600 * Mbps, 6000 * Mbps}, // 5e6*3e12 overflows int64
		{0, 0, 0},
	} {
		p := DefaultParams(tc.line)
		if p.AI != tc.ai || p.HAI != tc.hai {
			t.Errorf("DefaultParams(%d): AI %d HAI %d, want %d %d", tc.line, p.AI, p.HAI, tc.ai, tc.hai)
		}
	}
	p := DefaultParams(line25)
	want := Params{G: 1.0 / 256, AlphaInterval: 1_000_000, DecreaseInterval: 4_000_000,
		IncreaseInterval: 300_000_000, FirstDecreaseDelay: 1000, FastRecoveryTimes: 1,
		AI: 5_000_000, HAI: 50_000_000, MinRate: 1_000_000_000, RateOnFirstCNP: 1, ClampTarget: false}
	if p != want {
		t.Errorf("DefaultParams(25G) = %+v, want %+v", p, want)
	}
	if err := p.Validate(); err != nil {
		t.Errorf("Validate(default) = %v", err)
	}
}

func TestValidate(t *testing.T) {
	for _, tc := range []struct {
		field string
		mod   func(*Params)
	}{
		{"G", func(p *Params) { p.G = 0 }},
		{"G", func(p *Params) { p.G = 1.5 }},
		{"G", func(p *Params) { p.G = math.NaN() }},
		{"AlphaInterval", func(p *Params) { p.AlphaInterval = 0 }},
		{"DecreaseInterval", func(p *Params) { p.DecreaseInterval = -1 }},
		{"FirstDecreaseDelay", func(p *Params) { p.FirstDecreaseDelay = -1 }},
		{"IncreaseInterval", func(p *Params) { p.IncreaseInterval = 0 }},
		{"IncreaseInterval", func(p *Params) { p.IncreaseInterval = p.DecreaseInterval + p.FirstDecreaseDelay }},
		{"DecreaseInterval", func(p *Params) { p.DecreaseInterval = math.MaxInt64 / 2 }},
		{"FastRecoveryTimes", func(p *Params) { p.FastRecoveryTimes = -1 }},
		{"AI", func(p *Params) { p.AI = -1 }},
		{"HAI", func(p *Params) { p.HAI = -1 }},
		{"MinRate", func(p *Params) { p.MinRate = -1 }},
		{"RateOnFirstCNP", func(p *Params) { p.RateOnFirstCNP = 0 }},
		{"RateOnFirstCNP", func(p *Params) { p.RateOnFirstCNP = 1.01 }},
	} {
		p := DefaultParams(line25)
		tc.mod(&p)
		err := p.Validate()
		if err == nil || !strings.Contains(err.Error(), tc.field) {
			t.Errorf("%s: Validate() = %v, want an error naming %s", tc.field, err, tc.field)
		}
	}
}

func TestInitial(t *testing.T) {
	p := DefaultParams(line25)
	s := newSender(&p, line25)
	s.Advance(1e12)
	if s.Rate() != line25 || s.Target() != line25 || s.Alpha(1e12) != 1 || s.Next() != math.MaxInt64 {
		t.Fatalf("fresh sender: rate %d target %d alpha %v next %d", s.Rate(), s.Target(), s.Alpha(1e12), s.Next())
	}
}

// TestHandComputed checks single steps against values worked out by hand.
func TestHandComputed(t *testing.T) {
	p := DefaultParams(line25)
	const g = 1.0 / 256
	const t0 = 2_000_000_000_000 // 2 s, HPCC's flow start
	const us = Microsecond

	t.Run("first CNP then one decrease", func(t *testing.T) {
		s := newSender(&p, line25)
		s.OnCNP(t0)
		if s.Rate() != line25 || s.Target() != line25 {
			t.Fatalf("after first CNP: rate %d target %d", s.Rate(), s.Target())
		}
		if a := s.Alpha(t0 + us - 1); a != 1 {
			t.Errorf("alpha before the first update = %v, want 1", a)
		}
		// The first CNP clears the alpha flag: the first update only decays.
		if a := s.Alpha(t0 + us); a != 1-g {
			t.Errorf("alpha after the first update = %v, want %v", a, 1-g)
		}
		if next := s.Next(); next != t0+1000+4*us {
			t.Fatalf("Next = %d, want t0+1ns+4µs", next-t0)
		}
		s.Advance(t0 + 4*us + 999)
		if s.Rate() != line25 {
			t.Fatalf("decreased before the check: %d", s.Rate())
		}
		s.Advance(t0 + 4*us + 1000)
		// alpha = (255/256)^4 = 0.98446631...; 25e9*(1-alpha/2) = 12694171068.9
		if s.Rate() != 12_694_171_068 || s.Target() != line25 {
			t.Errorf("after first decrease: rate %d target %d, want 12694171068 %d", s.Rate(), s.Target(), line25)
		}
		if next := s.Next(); next != t0+1000+304*us {
			t.Errorf("Next = t0+%d, want the increase timer at t0+1ns+304µs", next-t0)
		}
	})

	t.Run("second CNP raises alpha", func(t *testing.T) {
		s := newSender(&p, line25)
		s.OnCNP(t0)
		s.OnCNP(t0 + us/2)
		if a := s.Alpha(t0 + us); a != 1 { // (1-g)*1 + g
			t.Errorf("alpha = %v, want 1", a)
		}
		if a := s.Alpha(t0 + 3*us); a != (1-g)*(1-g) {
			t.Errorf("alpha = %v, want (1-g)^2", a)
		}
		// A CNP exactly on the update at t0+3µs counts for that update.
		s.OnCNP(t0 + 3*us)
		if a, want := s.Alpha(t0+3*us), float64((1-g)*(1-g))+g; a != want { // from 1-g after t0+2µs
			t.Errorf("alpha = %v, want %v", a, want)
		}
	})

	t.Run("AI then HAI after a clamped decrease", func(t *testing.T) {
		s := newSender(&p, line25)
		s.OnCNP(t0)
		td := t0 + 1000 + 4*us
		s.Advance(td)
		r1 := s.Rate()
		s.Advance(td + 300*us) // fast recovery: stage 0 -> 1
		r2 := r1/2 + line25/2
		if s.Rate() != r2 || s.Target() != line25 {
			t.Fatalf("fast recovery: rate %d target %d, want %d %d", s.Rate(), s.Target(), r2, line25)
		}
		s.OnCNP(td + 301*us) // next check at td+304µs, stage 1: target = rate
		a := s.Alpha(td + 304*us)
		s.Advance(td + 304*us)
		r3 := int64(float64(r2) * (1 - a/2))
		if s.Rate() != r3 || s.Target() != r2 {
			t.Fatalf("clamped decrease: rate %d target %d, want %d %d", s.Rate(), s.Target(), r3, r2)
		}
		td2 := td + 304*us
		s.Advance(td2 + 300*us) // FR
		r4 := r3/2 + r2/2
		s.Advance(td2 + 600*us) // AI
		t5 := r2 + p.AI
		r5 := r4/2 + t5/2
		if s.Rate() != r5 || s.Target() != t5 {
			t.Fatalf("active increase: rate %d target %d, want %d %d", s.Rate(), s.Target(), r5, t5)
		}
		s.Advance(td2 + 900*us) // HAI
		t6 := t5 + p.HAI
		r6 := r5/2 + t6/2
		if s.Rate() != r6 || s.Target() != t6 {
			t.Fatalf("hyper increase: rate %d target %d, want %d %d", s.Rate(), s.Target(), r6, t6)
		}
	})

	t.Run("increase before decrease at the same picosecond", func(t *testing.T) {
		s := newSender(&p, line25)
		s.OnCNP(t0)
		td := t0 + 1000 + 4*us // check grid: t0 + 1ns + 4k µs
		s.Advance(td)
		r1 := s.Rate()
		s.OnCNP(td + 297*us) // its check is at td+300µs, with the increase
		if next := s.Next(); next != td+300*us {
			t.Fatalf("Next = %d, want td+300µs", next-td)
		}
		a := s.Alpha(td + 300*us)
		s.Advance(td + 300*us)
		r2 := r1/2 + line25/2 // increase first: stage 1, so the check clamps
		want := int64(float64(r2) * (1 - a/2))
		if s.Rate() != want || s.Target() != r2 {
			t.Fatalf("rate %d target %d, want %d %d (increase, then decrease)", s.Rate(), s.Target(), want, r2)
		}
	})

	t.Run("CNP at a check's time is applied before it", func(t *testing.T) {
		s := newSender(&p, line25)
		s.OnCNP(t0)
		td := t0 + 1000 + 4*us
		s.Advance(td)
		r1 := s.Rate()
		s.OnCNP(td + 4*us) // same picosecond as the next check
		s.Advance(td + 4*us)
		if s.Rate() >= r1 {
			t.Fatalf("CNP at the check time did not decrease at that check")
		}
		// Once Advance has run the check at a time, a CNP at that time
		// counts for the next check.
		s2 := newSender(&p, line25)
		s2.OnCNP(t0)
		s2.Advance(td + 4*us)
		s2.OnCNP(td + 4*us)
		if s2.Rate() != r1 || s2.Next() != td+8*us {
			t.Fatalf("late CNP: rate %d next td+%d, want %d td+8µs", s2.Rate(), s2.Next()-td, r1)
		}
	})

	t.Run("no-op fast recovery does not park the timer", func(t *testing.T) {
		// G = 1 and a lone CNP: the first alpha update gives alpha = 0, so
		// the decrease keeps the rate (line/2 after RateOnFirstCNP) and the
		// fast-recovery steps change nothing; the AI step must still come.
		q := p
		q.G = 1
		q.ClampTarget = true
		q.RateOnFirstCNP = 0.5
		q.FastRecoveryTimes = 3
		s := newSender(&q, line25)
		s.OnCNP(t0)
		td := t0 + 1000 + 4*us
		s.Advance(td)
		half := line25 / 2
		if s.Rate() != half || s.Target() != half || s.Alpha(td) != 0 {
			t.Fatalf("rate %d target %d alpha %v, want %d %d 0", s.Rate(), s.Target(), s.Alpha(td), half, half)
		}
		s.Advance(td + 3*300*us) // three no-op fast-recovery steps
		if s.Rate() != half || s.Next() != td+4*300*us {
			t.Fatalf("after fast recovery: rate %d next td+%d", s.Rate(), s.Next()-td)
		}
		s.Advance(td + 4*300*us) // AI
		if s.Target() != half+q.AI || s.Rate() != half/2+(half+q.AI)/2 {
			t.Fatalf("AI step: rate %d target %d", s.Rate(), s.Target())
		}
	})

	t.Run("RateOnFirstCNP", func(t *testing.T) {
		q := p
		q.RateOnFirstCNP = 0.3
		s := newSender(&q, 10_000_000_001)
		s.OnCNP(t0)
		if want := int64(3_000_000_000); s.Rate() != want || s.Target() != want {
			t.Fatalf("rate %d target %d, want %d", s.Rate(), s.Target(), want)
		}
	})
}

func TestMinRateFloor(t *testing.T) {
	p := DefaultParams(line25)
	s := newSender(&p, line25)
	const t0 = 5 * Microsecond
	for c := t0; c < t0+2000*Microsecond; c += 700 * Nanosecond {
		s.OnCNP(c)
		if s.Rate() < p.MinRate {
			t.Fatalf("rate %d below MinRate", s.Rate())
		}
	}
	if s.Rate() != p.MinRate {
		t.Fatalf("rate %d under persistent CNPs, want MinRate %d", s.Rate(), p.MinRate)
	}
	q := p
	q.MinRate = 20 * Gbps
	s.Reset(&q, line25)
	s.OnCNP(0)
	s.Advance(s.Next())
	if s.Rate() != q.MinRate {
		t.Fatalf("rate %d after one decrease, want the floor %d", s.Rate(), q.MinRate)
	}
}

// TestRecovery drives a sender to the floor, stops the CNPs and follows every
// increase step back to line rate: FastRecoveryTimes steps toward the target,
// one AI step, then HAI steps, the target capped at line rate, and finally a
// parked timer.
func TestRecovery(t *testing.T) {
	for _, tc := range []struct {
		name string
		line int64
		frt  int
		aiX  int64 // scales AI and HAI so the test stays short
	}{
		{"25G", line25, 1, 20},
		{"100G FRT5", 100 * Gbps, 5, 50},
		{"odd line FRT0", 25*Gbps + 1, 0, 20},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := DefaultParams(tc.line)
			p.FastRecoveryTimes = tc.frt
			p.AI *= tc.aiX
			p.HAI *= tc.aiX
			s := newSender(&p, tc.line)
			var c int64
			for c = 0; c < 1000*Microsecond; c += Microsecond {
				s.OnCNP(c)
			}
			s.Advance(c)
			s.OnCNP(c) // one more check: target = floor rate (stage != 0 or not, rate is the floor)
			s.Advance(s.Next())
			if s.Rate() != p.MinRate {
				t.Fatalf("rate %d, want floor", s.Rate())
			}
			last := s.Next()
			step := 0
			for s.Next() != math.MaxInt64 {
				n := s.Next()
				if step > 0 && n != last+p.IncreaseInterval {
					t.Fatalf("step %d at +%d, want every IncreaseInterval", step, n-last)
				}
				last = n
				r0, t0 := s.Rate(), s.Target()
				s.Advance(n)
				var dt int64
				switch {
				case step < tc.frt:
					dt = 0
				case step == tc.frt:
					dt = p.AI
				default:
					dt = p.HAI
				}
				wantT := min(t0+dt, tc.line)
				if s.Target() != wantT || s.Rate() != r0/2+wantT/2 {
					t.Fatalf("step %d: rate %d target %d, want %d %d", step, s.Rate(), s.Target(), r0/2+wantT/2, wantT)
				}
				step++
				if step > 100000 {
					t.Fatal("never parked")
				}
			}
			// HPCC's integer halving never quite reaches line rate from
			// below: rate/2 + line/2 is stuck at line-1 (even line) or
			// line-2 (odd line).
			want := tc.line - 1
			if tc.line%2 == 1 {
				want = tc.line - 2
			}
			if s.Target() != tc.line || s.Rate() != want {
				t.Fatalf("parked at rate %d target %d, want %d %d", s.Rate(), s.Target(), want, tc.line)
			}
			// Parked: nothing changes, however far time goes.
			s.Advance(last + 1000*p.IncreaseInterval)
			if s.Rate() != want || s.Next() != math.MaxInt64 {
				t.Fatalf("parked sender moved")
			}
		})
	}
}

func TestStop(t *testing.T) {
	p := DefaultParams(line25)
	s := newSender(&p, line25)
	s.OnCNP(0)
	s.OnCNP(2500 * Nanosecond)
	s.Advance(2500 * Nanosecond)
	a := s.Alpha(2500 * Nanosecond)
	r := s.Rate()
	s.Stop()
	if s.Next() != math.MaxInt64 {
		t.Fatalf("Next after Stop = %d", s.Next())
	}
	s.OnCNP(3 * Microsecond)
	s.Advance(time1s)
	if s.Rate() != r || s.Target() != line25 || s.Alpha(time1s) != a {
		t.Fatalf("stopped sender changed: rate %d target %d alpha %v (was %d %v)", s.Rate(), s.Target(), s.Alpha(time1s), r, a)
	}
	s.Reset(&p, line25)
	if s.Rate() != line25 || s.Next() != math.MaxInt64 || s.Alpha(0) != 1 {
		t.Fatalf("Reset after Stop did not reinitialise")
	}
	s.OnCNP(time1s)
	if s.Next() == math.MaxInt64 {
		t.Fatalf("Reset sender ignores CNPs")
	}
}

const time1s = 1_000_000_000_000

func TestAllocs(t *testing.T) {
	p := DefaultParams(line25)
	senders := make([]Sender, 4)
	for i := range senders {
		senders[i].Reset(&p, line25)
	}
	var now int64
	allocs := testing.AllocsPerRun(1000, func() {
		now += 1700 * Nanosecond
		for i := range senders {
			s := &senders[i]
			if i%2 == 0 || now%(3*Microsecond) < Microsecond {
				s.OnCNP(now)
			}
			s.Advance(now)
			_ = s.Next()
			_ = s.Alpha(now + 100*Microsecond)
		}
	})
	if allocs != 0 {
		t.Fatalf("%v allocations per run, want 0", allocs)
	}
}

// paramCases are the parameter sets the property tests run.
func paramCases() []struct {
	name string
	p    Params
	line int64
} {
	d25 := DefaultParams(line25)
	d100 := DefaultParams(100 * Gbps)
	clamp := d25
	clamp.ClampTarget = true
	clamp.FastRecoveryTimes = 5
	clamp.RateOnFirstCNP = 0.5
	clamp.G = 1.0 / 16
	noDelay := d25 // checks coincide with alpha updates: ns-3 runs the first check first
	noDelay.FirstDecreaseDelay = 0
	equal := d25 // AlphaInterval == DecreaseInterval, FirstDecreaseDelay 0: alpha first
	equal.AlphaInterval = 4 * Microsecond
	equal.FirstDecreaseDelay = 0
	equalDelay := equal // ... and with FirstDecreaseDelay one alpha interval: check first
	equalDelay.FirstDecreaseDelay = 4 * Microsecond
	slowAlpha := d25 // DecreaseInterval < AlphaInterval: alpha first at later coincidences
	slowAlpha.AlphaInterval = 8 * Microsecond
	slowAlpha.FirstDecreaseDelay = 0
	floor := DefaultParams(10*Gbps + 1)
	floor.MinRate = 4 * Gbps
	floor.FastRecoveryTimes = 0
	floor.AI *= 30
	floor.HAI *= 30
	odd := DefaultParams(40 * Gbps)
	odd.AlphaInterval = 700 * Nanosecond
	odd.DecreaseInterval = 3 * Microsecond
	odd.FirstDecreaseDelay = 250 * Nanosecond
	odd.IncreaseInterval = 55 * Microsecond
	odd.FastRecoveryTimes = 2
	odd.G = 0.1
	gainOne := d25 // alpha is 0 or 1: a lone CNP leaves the rate as it is
	gainOne.G = 1
	gainOne.ClampTarget = true
	gainOne.RateOnFirstCNP = 0.5
	gainOne.FastRecoveryTimes = 3
	noInc := d25
	noInc.AI, noInc.HAI = 0, 0
	noInc.IncreaseInterval = 30 * Microsecond
	return []struct {
		name string
		p    Params
		line int64
	}{
		{"default25G", d25, line25},
		{"default100G", d100, 100 * Gbps},
		{"clamp", clamp, line25},
		{"noDelay", noDelay, line25},
		{"equalIntervals", equal, line25},
		{"equalIntervalsDelay", equalDelay, line25},
		{"slowAlpha", slowAlpha, line25},
		{"floorOddLine", floor, 10*Gbps + 1},
		{"oddIntervals", odd, 40 * Gbps},
		{"noIncrease", noInc, line25},
		{"gainOne", gainOne, line25},
	}
}

// checker compares a Sender with the reference model.
type checker struct {
	t                        *testing.T
	exact                    bool
	rateMismatch, alphaWorst float64
}

func (c *checker) rateOK(a, b int64) bool {
	if c.exact {
		return a == b
	}
	d := math.Abs(float64(a - b))
	if d == 0 {
		return true
	}
	rel := d / float64(max(a, b))
	c.rateMismatch = max(c.rateMismatch, rel)
	return rel <= 1e-9
}

func (c *checker) alphaOK(a, b float64) bool {
	if c.exact {
		return a == b
	}
	d := math.Abs(a - b)
	if d <= 1e-300 {
		return true
	}
	rel := d / math.Max(math.Abs(a), math.Abs(b))
	c.alphaWorst = max(c.alphaWorst, rel)
	return rel <= 1e-12
}

func (c *checker) compare(what string, now int64, s *Sender, m *refModel, withAlpha bool) {
	c.t.Helper()
	if !c.rateOK(s.Rate(), m.rate) || !c.rateOK(s.Target(), m.target) {
		c.t.Fatalf("%s at %d: rate %d target %d, reference %d %d", what, now, s.Rate(), s.Target(), m.rate, m.target)
	}
	if withAlpha && !c.alphaOK(s.Alpha(now), m.alpha) {
		c.t.Fatalf("%s at %d: alpha %.17g, reference %.17g", what, now, s.Alpha(now), m.alpha)
	}
}

// TestProperty drives the Sender and the reference model with random CNP
// arrivals (bursts, quiet periods, CNPs on timer instants and on alpha grid
// points, several CNPs at one instant, CNPs after an Advance to the same
// instant) and compares rate, target and alpha at many probe times. With
// exact alpha decay the two must agree bit for bit; with the closed form
// alpha agrees within 1e-12 relative and rates within 1e-9 relative.
func TestProperty(t *testing.T) {
	for _, mode := range []struct {
		name  string
		exact bool
	}{{"exact", true}, {"closedForm", false}} {
		t.Run(mode.name, func(t *testing.T) {
			for _, pc := range paramCases() {
				t.Run(pc.name, func(t *testing.T) {
					if err := pc.p.Validate(); err != nil {
						t.Fatal(err)
					}
					c := &checker{t: t, exact: mode.exact}
					seeds := uint64(6)
					if testing.Short() {
						seeds = 2
					}
					p := pc.p
					if mode.exact {
						p = exactDecay(p)
					}
					for seed := range seeds {
						propertyRun(t, c, p, pc.line, seed)
					}
					if !mode.exact {
						t.Logf("worst relative differences: rate %.3g alpha %.3g", c.rateMismatch, c.alphaWorst)
					}
				})
			}
		})
	}
}

func propertyRun(t *testing.T, c *checker, p Params, line int64, seed uint64) {
	r := rand.New(rand.NewPCG(seed, 0x9e3779b97f4a7c15))
	s := newSender(&p, line)
	m := newRef(p, line)
	t0 := int64(2*time1s) + r.Int64N(p.AlphaInterval)
	now := t0
	s.OnCNP(now)
	m.cnp(now)
	c.compare("first cnp", now, s, m, false)
	congested := true
	for range 2500 {
		switch k := r.IntN(100); {
		case k < 15: // same instant
		case k < 40:
			now += r.Int64N(2 * p.AlphaInterval)
		case k < 60:
			now += r.Int64N(2 * p.DecreaseInterval)
		case k < 70:
			now += r.Int64N(2 * p.IncreaseInterval)
		case k < 75:
			now += r.Int64N(10 * p.IncreaseInterval)
		case k < 88: // on, just before or just after the next timer action
			if n := s.Next(); n != math.MaxInt64 && n-1 >= now {
				now = n - 1 + r.Int64N(3)
			}
		default: // on an alpha grid point
			g := t0 + ((now-t0)/p.AlphaInterval+1)*p.AlphaInterval
			now = g - r.Int64N(2)
		}
		if r.IntN(50) == 0 {
			congested = !congested
		}
		pc := 3
		if congested {
			pc = 60
		}
		if r.IntN(100) < pc {
			s.OnCNP(now)
			m.cnp(now)
			c.compare("cnp", now, s, m, false)
		} else {
			m.runUntil(now)
			s.Advance(now)
			c.compare("probe", now, s, m, true)
			if n := s.Next(); n <= now {
				t.Fatalf("Next %d not after Advance(%d)", n, now)
			}
		}
	}
}

// TestEventDriven uses the Sender as the packet simulator does, with one
// pending event per flow at Next, and checks against the reference model
// that no rate change happens before Next and that each action matches.
func TestEventDriven(t *testing.T) {
	for _, pc := range paramCases() {
		t.Run(pc.name, func(t *testing.T) {
			c := &checker{t: t, exact: true}
			for seed := range uint64(4) {
				r := rand.New(rand.NewPCG(seed, 7))
				p := exactDecay(pc.p)
				s := newSender(&p, pc.line)
				m := newRef(p, pc.line)
				var cnps []int64
				now := int64(r.Int64N(time1s))
				for range 1500 {
					switch k := r.IntN(10); {
					case k < 6:
						now += r.Int64N(3 * p.AlphaInterval)
					case k < 9:
						now += r.Int64N(3 * p.DecreaseInterval)
					default:
						now += r.Int64N(4 * p.IncreaseInterval)
					}
					cnps = append(cnps, now)
				}
				// Long enough for HAI steps from the floor back to line rate.
				end := now + 400*p.IncreaseInterval
				if p.HAI > 0 {
					end = now + (pc.line/p.HAI+100)*p.IncreaseInterval
				}
				actions := 0
				step := func(limit int64) {
					for {
						n := s.Next()
						if n >= limit { // a CNP at n runs first
							return
						}
						m.runUntil(n - 1)
						c.compare("before action", n-1, s, m, false)
						s.Advance(n)
						m.runUntil(n)
						c.compare("action", n, s, m, true)
						actions++
					}
				}
				for _, ct := range cnps {
					step(ct)
					s.OnCNP(ct)
					m.cnp(ct)
					c.compare("cnp", ct, s, m, false)
				}
				step(end)
				m.runUntil(end)
				s.Advance(end)
				c.compare("end", end, s, m, true)
				if p.AI > 0 && s.Next() != math.MaxInt64 {
					t.Errorf("seed %d: increase timer not parked after recovery", seed)
				}
				if actions > m.events/5 {
					t.Errorf("seed %d: %d actions for %d reference events", seed, actions, m.events)
				}
			}
		})
	}
}

func BenchmarkSender(b *testing.B) {
	p := DefaultParams(line25)
	senders := make([]Sender, 1024)
	for i := range senders {
		senders[i].Reset(&p, line25)
	}
	r := rand.New(rand.NewPCG(1, 2))
	var cnp [4096]bool
	for i := range cnp {
		cnp[i] = r.IntN(8) == 0
	}
	var now int64
	b.ReportAllocs()
	b.ResetTimer()
	for i := range b.N {
		s := &senders[i&1023]
		if i&1023 == 0 {
			now += 2 * Microsecond
		}
		if cnp[i&4095] {
			s.OnCNP(now)
		}
		if s.Next() <= now {
			s.Advance(now)
		}
	}
}

func BenchmarkAlphaClosedForm(b *testing.B) {
	p := DefaultParams(line25)
	s := newSender(&p, line25)
	s.OnCNP(0)
	b.ReportAllocs()
	b.ResetTimer()
	var sink float64
	for i := range b.N {
		sink += s.Alpha(int64(i&1023) * 37 * Microsecond)
	}
	_ = sink
}
