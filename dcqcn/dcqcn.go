package dcqcn

import (
	"errors"
	"fmt"
	"math"
	"math/bits"
)

// Time units, in picoseconds.
const (
	// Picosecond is the package's time unit.
	Picosecond int64 = 1
	// Nanosecond is 1000 ps.
	Nanosecond = 1000 * Picosecond
	// Microsecond is 1000 ns.
	Microsecond = 1000 * Nanosecond
)

// Rate units, in bits per second.
const (
	// Mbps is one megabit per second.
	Mbps int64 = 1_000_000
	// Gbps is one gigabit per second.
	Gbps = 1000 * Mbps
)

// HPCC's dcqcn preset (run.py with CC_MODE 1, config keys in parentheses).
const (
	// DefaultG is the alpha EWMA gain g, 1/256 (EWMA_GAIN 0.00390625).
	DefaultG = 1.0 / 256
	// DefaultAlphaInterval is the alpha update period, 1 µs
	// (ALPHA_RESUME_INTERVAL 1, in µs).
	DefaultAlphaInterval = 1 * Microsecond
	// DefaultDecreaseInterval is the rate decrease check period, 4 µs
	// (RATE_DECREASE_INTERVAL 4, in µs).
	DefaultDecreaseInterval = 4 * Microsecond
	// DefaultIncreaseInterval is the rate increase timer period, 300 µs
	// (RP_TIMER 300, in µs).
	DefaultIncreaseInterval = 300 * Microsecond
	// DefaultFirstDecreaseDelay is the extra delay of the first decrease
	// check after the first CNP, 1 ns, so that a check never coincides with
	// an alpha update (hard-coded in rdma-hw.cc: ScheduleDecreaseRateMlx(q, 1);
	// no config key).
	DefaultFirstDecreaseDelay = 1 * Nanosecond
	// DefaultFastRecoveryTimes is the number of fast-recovery increase steps
	// before active increase, 1 (FAST_RECOVERY_TIMES 1).
	DefaultFastRecoveryTimes = 1
	// DefaultAIAtRef is the active-increase step of a NIC at RefLineRate,
	// 5 Mbps (RATE_AI 5Mb/s at 25 Gbps; run.py scales it by bw/25G).
	DefaultAIAtRef = 5 * Mbps
	// DefaultHAIAtRef is the hyper-increase step of a NIC at RefLineRate,
	// 50 Mbps (RATE_HAI 50Mb/s at 25 Gbps; run.py scales it by bw/25G).
	DefaultHAIAtRef = 50 * Mbps
	// RefLineRate is the line rate at which DefaultAIAtRef and
	// DefaultHAIAtRef hold, 25 Gbps.
	RefLineRate = 25 * Gbps
	// DefaultMinRate is the floor of a decreased rate, 1000 Mbps
	// (MIN_RATE 1000Mb/s).
	DefaultMinRate = 1000 * Mbps
	// DefaultRateOnFirstCNP is the fraction of the current rate kept on the
	// first CNP, 1.0 (ns-3 attribute RdmaHw::RateOnFirstCnp; no config key).
	DefaultRateOnFirstCNP = 1.0
	// DefaultClampTarget is whether every decrease sets target = rate, false
	// (CLAMP_TARGET_RATE 0): without it the target is kept when no increase
	// step happened since the last decrease.
	DefaultClampTarget = false
)

// Params are the reaction-point constants. One Params is shared by every
// Sender of a NIC; Sender keeps a pointer to it, so it may change only
// between a Rebase of every Sender that uses it and their next call.
type Params struct {
	// G is the alpha EWMA gain g, in (0, 1] (EWMA_GAIN).
	G float64
	// AlphaInterval is the alpha update period, ps (ALPHA_RESUME_INTERVAL).
	AlphaInterval int64
	// DecreaseInterval is the rate decrease check period, ps
	// (RATE_DECREASE_INTERVAL).
	DecreaseInterval int64
	// IncreaseInterval is the rate increase timer period, ps (RP_TIMER).
	IncreaseInterval int64
	// FirstDecreaseDelay is added to the time of the first decrease check
	// after the first CNP, ps (1 ns in rdma-hw.cc).
	FirstDecreaseDelay int64
	// FastRecoveryTimes is the number of fast-recovery steps after a
	// decrease before active increase (FAST_RECOVERY_TIMES).
	FastRecoveryTimes int
	// AI is the active-increase step of the target rate, bps (RATE_AI).
	AI int64
	// HAI is the hyper-increase step of the target rate, bps (RATE_HAI).
	HAI int64
	// MinRate is the floor of a decreased rate, bps (MIN_RATE).
	MinRate int64
	// RateOnFirstCNP is the fraction of the rate kept on the first CNP, in
	// (0, 1] (RdmaHw::RateOnFirstCnp).
	RateOnFirstCNP float64
	// ClampTarget makes every decrease set target = rate
	// (CLAMP_TARGET_RATE).
	ClampTarget bool

	// exactSteps, if not zero, replaces exactAlphaSteps: the tests set it
	// to math.MaxInt64, so that every alpha decay is exact. Zero, as every
	// Params outside this package's tests has, is exactAlphaSteps.
	exactSteps int64
}

// DefaultParams returns HPCC's dcqcn preset for a NIC of the given line rate,
// bps: the Default* constants, with AI and HAI scaled by lineRate/RefLineRate
// (floor(5 Mbps*lineRate/25G) and floor(50 Mbps*lineRate/25G); a non-positive
// lineRate gives 0).
func DefaultParams(lineRate int64) Params {
	return Params{
		G:                  DefaultG,
		AlphaInterval:      DefaultAlphaInterval,
		DecreaseInterval:   DefaultDecreaseInterval,
		IncreaseInterval:   DefaultIncreaseInterval,
		FirstDecreaseDelay: DefaultFirstDecreaseDelay,
		FastRecoveryTimes:  DefaultFastRecoveryTimes,
		AI:                 scaleRate(DefaultAIAtRef, lineRate),
		HAI:                scaleRate(DefaultHAIAtRef, lineRate),
		MinRate:            DefaultMinRate,
		RateOnFirstCNP:     DefaultRateOnFirstCNP,
		ClampTarget:        DefaultClampTarget,
	}
}

// scaleRate returns floor(step*lineRate/RefLineRate) without overflow.
func scaleRate(step, lineRate int64) int64 {
	if lineRate <= 0 {
		return 0
	}
	hi, lo := bits.Mul64(uint64(step), uint64(lineRate))
	q, _ := bits.Div64(hi, lo, uint64(RefLineRate))
	return int64(q)
}

// Validate reports the first field that cannot be used, by name.
func (p Params) Validate() error {
	switch {
	case !(p.G > 0 && p.G <= 1):
		return fmt.Errorf("dcqcn: G %v must be in (0, 1]", p.G)
	case p.AlphaInterval <= 0:
		return fmt.Errorf("dcqcn: AlphaInterval %d ps must be positive", p.AlphaInterval)
	case p.DecreaseInterval <= 0:
		return fmt.Errorf("dcqcn: DecreaseInterval %d ps must be positive", p.DecreaseInterval)
	case p.FirstDecreaseDelay < 0:
		return fmt.Errorf("dcqcn: FirstDecreaseDelay %d ps must not be negative", p.FirstDecreaseDelay)
	case p.IncreaseInterval <= 0:
		return fmt.Errorf("dcqcn: IncreaseInterval %d ps must be positive", p.IncreaseInterval)
	case p.DecreaseInterval > math.MaxInt64/4-p.FirstDecreaseDelay:
		return fmt.Errorf("dcqcn: DecreaseInterval %d ps + FirstDecreaseDelay %d ps is too large", p.DecreaseInterval, p.FirstDecreaseDelay)
	case p.IncreaseInterval <= p.DecreaseInterval+p.FirstDecreaseDelay:
		return fmt.Errorf("dcqcn: IncreaseInterval %d ps must exceed DecreaseInterval + FirstDecreaseDelay (%d ps)", p.IncreaseInterval, p.DecreaseInterval+p.FirstDecreaseDelay)
	case p.FastRecoveryTimes < 0:
		return fmt.Errorf("dcqcn: FastRecoveryTimes %d must not be negative", p.FastRecoveryTimes)
	case p.AI < 0:
		return fmt.Errorf("dcqcn: AI %d bps must not be negative", p.AI)
	case p.HAI < 0:
		return fmt.Errorf("dcqcn: HAI %d bps must not be negative", p.HAI)
	case p.MinRate < 0:
		return fmt.Errorf("dcqcn: MinRate %d bps must not be negative", p.MinRate)
	case !(p.RateOnFirstCNP > 0 && p.RateOnFirstCNP <= 1):
		return fmt.Errorf("dcqcn: RateOnFirstCNP %v must be in (0, 1]", p.RateOnFirstCNP)
	}
	return nil
}

// errNilParams is the panic value of Reset with nil Params.
var errNilParams = errors.New("dcqcn: Reset with nil Params")

// exactAlphaSteps is the longest pure alpha decay done by repeated
// multiplication, bit-identical to HPCC's per-event updates; longer decays
// use math.Pow (a few ulps off). Params.exactSteps overrides it in tests.
const exactAlphaSteps = 16

// Sender is the reaction-point state of one flow (one queue pair). The zero
// value is not usable: call Reset. It holds no pointers except to its Params
// and is meant to live by value in a slice.
type Sender struct {
	p *Params

	line   int64 // line rate, bps
	rate   int64 // current rate, bps
	target int64 // target rate, bps

	// alpha is valid after every alpha update before alphaNext.
	alpha     float64
	alphaNext int64 // next alpha update not yet applied; MaxInt64 if none

	decGrid  int64 // a decrease check time; checks at decGrid + k*DecreaseInterval, k >= 0
	decFirst int64 // the first check after the first CNP, t0 + FirstDecreaseDelay + DecreaseInterval
	decNext  int64 // pending decrease check, meaningful while decFlag is set
	incNext  int64 // next increase timer, MaxInt64 if stopped or parked
	done     int64 // every timer action at or before done has run

	stage     int
	alphaFlag bool // a CNP arrived since the last alpha update
	decFlag   bool // a CNP arrived since the last decrease check
	started   bool // the first CNP has arrived
	stopped   bool
}

// Reset (re)initialises s for a new flow on a NIC of lineRate bps: rate and
// target at line rate, alpha = 1, no timers. s keeps the pointer p. It panics
// if p is nil or lineRate is not positive; p should have passed Validate.
func (s *Sender) Reset(p *Params, lineRate int64) {
	if p == nil {
		panic(errNilParams)
	}
	if lineRate <= 0 {
		panic(fmt.Sprintf("dcqcn: Reset with line rate %d bps", lineRate))
	}
	*s = Sender{
		p:         p,
		line:      lineRate,
		rate:      lineRate,
		target:    lineRate,
		alpha:     1,
		alphaNext: math.MaxInt64,
		decNext:   math.MaxInt64,
		incNext:   math.MaxInt64,
		done:      math.MinInt64,
	}
}

// Rate returns the current sending rate, bps.
func (s *Sender) Rate() int64 { return s.rate }

// Target returns the current target rate, bps.
func (s *Sender) Target() int64 { return s.target }

// Alpha returns alpha after every alpha update at or before now (closed form;
// s is not changed). Before the first CNP it is 1; after Stop it stays at its
// value as of the last time passed to OnCNP or Advance.
func (s *Sender) Alpha(now int64) float64 {
	a, _ := s.alphaAt(now)
	return a
}

// alphaAt returns alpha after every alpha update at or before t and the
// number of updates that are not yet applied to s.alpha.
func (s *Sender) alphaAt(t int64) (float64, int64) {
	if t < s.alphaNext {
		return s.alpha, 0
	}
	n := (t-s.alphaNext)/s.p.AlphaInterval + 1
	d := 1 - s.p.G
	a := s.alpha
	m := n
	if s.alphaFlag {
		// Explicit conversion: no fused multiply-add, as in HPCC.
		a = float64(d*a) + s.p.G
		m--
	}
	limit := int64(exactAlphaSteps)
	if s.p.exactSteps != 0 {
		limit = s.p.exactSteps
	}
	if m <= limit {
		for ; m > 0; m-- {
			a *= d
		}
	} else {
		a *= math.Pow(d, float64(m))
	}
	return a, n
}

// catchUpAlpha applies every alpha update at or before t.
func (s *Sender) catchUpAlpha(t int64) {
	a, n := s.alphaAt(t)
	if n == 0 {
		return
	}
	s.alpha = a
	s.alphaNext += n * s.p.AlphaInterval
	s.alphaFlag = false
}

// OnCNP applies a CNP (an ACK with the congestion flag) arriving at now. It
// first runs the timer actions before now; those at now that have not run yet
// run after the CNP, at the next Advance.
func (s *Sender) OnCNP(now int64) {
	if s.stopped {
		return
	}
	if !s.started {
		p := s.p
		s.started = true
		s.alpha = 1
		s.alphaFlag = false
		s.alphaNext = now + p.AlphaInterval
		s.decGrid = now + p.FirstDecreaseDelay + p.DecreaseInterval
		s.decFirst = s.decGrid
		s.decFlag = true
		s.decNext = s.decGrid
		s.rate = int64(p.RateOnFirstCNP * float64(s.rate))
		s.target = s.rate
		if s.done < now-1 {
			s.done = now - 1
		}
		return
	}
	if now != math.MinInt64 {
		s.run(now - 1)
	}
	// A set flag may already have been consumed by updates up to done.
	s.catchUpAlpha(s.done)
	s.alphaFlag = true
	if !s.decFlag {
		s.decFlag = true
		s.decNext = s.nextCheckAfter(s.done)
	}
}

// nextCheckAfter returns the first decrease check time after t.
func (s *Sender) nextCheckAfter(t int64) int64 {
	di := s.p.DecreaseInterval
	if t < s.decGrid {
		return s.decGrid
	}
	return s.decGrid + ((t-s.decGrid)/di+1)*di
}

// Next returns the time of the next timer action that can change the rate:
// the pending decrease check if a CNP arrived since the last one, or the
// increase timer, whichever is earlier; math.MaxInt64 if there is none
// (before the first CNP, after Stop, or once the increase timer is parked
// because further steps would change neither rate nor target).
func (s *Sender) Next() int64 {
	if s.stopped {
		return math.MaxInt64
	}
	t := s.incNext
	if s.decFlag && s.decNext < t {
		t = s.decNext
	}
	return t
}

// Advance runs every timer action due at or before now, in order.
func (s *Sender) Advance(now int64) {
	if s.stopped {
		return
	}
	s.run(now)
}

// run runs every timer action at or before t and records t as done.
func (s *Sender) run(t int64) {
	for {
		ti := s.incNext
		td := int64(math.MaxInt64)
		if s.decFlag {
			td = s.decNext
		}
		if ti <= td {
			// Increase first at equal times (scheduled earlier).
			if ti > t {
				break
			}
			s.increase(ti)
		} else {
			if td > t {
				break
			}
			s.decrease(td)
		}
	}
	if t > s.done {
		s.done = t
	}
}

// decrease runs the decrease check at t with the decrease flag set.
func (s *Sender) decrease(t int64) {
	p := s.p
	// The alpha update at t, if any, runs first unless ns-3 had scheduled
	// the check earlier (see the package comment).
	var decFirst bool
	if t == s.decFirst {
		decFirst = p.AlphaInterval < p.DecreaseInterval+p.FirstDecreaseDelay
	} else {
		decFirst = p.DecreaseInterval > p.AlphaInterval ||
			(p.DecreaseInterval == p.AlphaInterval && p.FirstDecreaseDelay > 0)
	}
	if decFirst {
		s.catchUpAlpha(t - 1)
	} else {
		s.catchUpAlpha(t)
	}
	if p.ClampTarget || s.stage != 0 {
		s.target = s.rate
	}
	r := int64(float64(s.rate) * (1 - s.alpha/2))
	if r < p.MinRate {
		r = p.MinRate
	}
	s.rate = r
	s.stage = 0
	s.decFlag = false
	s.incNext = t + p.IncreaseInterval
}

// increase runs the increase timer at t.
func (s *Sender) increase(t int64) {
	p := s.p
	s.incNext = t + p.IncreaseInterval
	switch {
	case s.stage < p.FastRecoveryTimes:
	case s.stage == p.FastRecoveryTimes:
		s.target = s.addTarget(p.AI)
	default:
		s.target = s.addTarget(p.HAI)
	}
	s.rate = s.rate/2 + s.target/2
	s.stage++
	// Park the timer once no later step can change rate or target: an AI
	// and an HAI step would both leave them as they are (then so would a
	// fast-recovery step, an AI step of 0). The stage is non-zero from here
	// on, which is all a later decrease reads of it.
	if s.fixed(p.AI) && s.fixed(p.HAI) {
		s.incNext = math.MaxInt64
	}
}

// addTarget returns target+step capped at line rate.
func (s *Sender) addTarget(step int64) int64 {
	t := s.target + step
	if t > s.line || t < s.target { // cap; t < target on overflow
		t = s.line
	}
	return t
}

// fixed reports whether an increase step of the given size leaves rate and
// target unchanged.
func (s *Sender) fixed(step int64) bool {
	t := s.addTarget(step)
	return t == s.target && s.rate/2+t/2 == s.rate
}

// Rebase prepares s for a change of the Params it points to at now: it
// runs every timer action before now (those at now an earlier Advance ran
// stay run), applies every alpha update up to then, and anchors the
// periodic decrease check at its next time. After Rebase(now) the caller
// may change *p (every Sender sharing it must be rebased first) and the
// change takes effect as a NIC's would: the timers already armed fire at
// the times they were armed for (the increase timer, the next alpha
// update, the next decrease check), every later period is the new one, and
// every action from then on uses the new constants (AI and HAI at the next
// increase step, G at the next alpha update). A parked increase timer stays
// parked, which is exact when AI and HAI stay positive (parking then
// depends on the rates only). Rebase does nothing before the first CNP (no
// timer is armed) or after Stop. It is not needed, and may change alpha in
// its last bits (it applies a pending decay sooner), when *p does not
// change. now must not decrease from the times given to OnCNP and Advance.
func (s *Sender) Rebase(now int64) {
	if s.stopped || !s.started {
		return
	}
	if now != math.MinInt64 {
		s.run(now - 1)
	}
	s.catchUpAlpha(s.done)
	s.decGrid = s.nextCheckAfter(s.done)
}

// Stop ends the flow (HPCC's QpComplete): every timer stops. Actions after
// the last time passed to OnCNP or Advance never run; Rate, Target and Alpha
// keep their values, and OnCNP and Advance do nothing until Reset.
func (s *Sender) Stop() {
	if s.stopped {
		return
	}
	if s.started {
		s.catchUpAlpha(s.done)
	}
	s.stopped = true
	s.alphaNext = math.MaxInt64
	s.incNext = math.MaxInt64
	s.decFlag = false
}
