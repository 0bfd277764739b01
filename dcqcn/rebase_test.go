package dcqcn

import (
	"math/rand/v2"
	"testing"
)

// TestRebase changes the constants of a running Sender every few CNPs
// (Rebase, then a new *p) and of the reference model at the same instant
// (every event before it run, then the new constants): the timers armed
// before the change fire when armed, the periods after it are the new
// ones, and the two must agree bit for bit (exact alpha decay) at every
// action, CNP and change.
func TestRebase(t *testing.T) {
	fast := exactDecay(DefaultParams(line25))
	fast.IncreaseInterval, fast.AlphaInterval, fast.DecreaseInterval = 55*Microsecond, 2*Microsecond, 8*Microsecond
	fast.AI, fast.HAI = 40*Mbps, 400*Mbps
	slow := exactDecay(DefaultParams(line25))
	slow.IncreaseInterval = 1000 * Microsecond
	tests := []struct {
		name string
		sets []Params // cycled through at each change
	}{
		{"default and fast", []Params{exactDecay(DefaultParams(line25)), fast}},
		{"fast and slow", []Params{fast, slow}},
		{"unchanged", []Params{exactDecay(DefaultParams(line25))}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := &checker{t: t, exact: true}
			for seed := range uint64(4) {
				r := rand.New(rand.NewPCG(seed, 11))
				p := tt.sets[0]
				s := newSender(&p, line25)
				m := newRef(p, line25)
				now := int64(r.Int64N(time1s))
				step := func(limit int64) {
					for n := s.Next(); n < limit; n = s.Next() {
						s.Advance(n)
						m.runUntil(n)
						c.compare("action", n, s, m, true)
					}
				}
				for k := range 2000 {
					now += r.Int64N(3 * p.DecreaseInterval)
					if k%3 == 0 { // a quiet period: recovery under the current constants
						now += r.Int64N(3 * p.IncreaseInterval)
					}
					if k%7 == 3 { // a change
						step(now)
						s.Rebase(now)
						m.runUntil(now - 1)
						p = tt.sets[(k/7+1)%len(tt.sets)]
						m.p = p
						c.compare("change", now, s, m, false)
						continue
					}
					step(now)
					s.OnCNP(now)
					m.cnp(now)
					c.compare("cnp", now, s, m, false)
				}
				end := now + 2000*p.IncreaseInterval
				step(end)
				s.Advance(end)
				m.runUntil(end)
				c.compare("end", end, s, m, true)
			}
		})
	}
}

// TestRebaseIdle: before the first CNP and after Stop, Rebase leaves the
// Sender as it is.
func TestRebaseIdle(t *testing.T) {
	p := DefaultParams(line25)
	s := newSender(&p, line25)
	before := *s
	s.Rebase(5 * Microsecond)
	if *s != before {
		t.Errorf("Rebase before the first CNP changed the sender: %+v", *s)
	}
	s.OnCNP(10 * Microsecond)
	s.Advance(20 * Microsecond)
	s.Stop()
	before = *s
	s.Rebase(30 * Microsecond)
	if *s != before {
		t.Errorf("Rebase after Stop changed the sender: %+v", *s)
	}
}
