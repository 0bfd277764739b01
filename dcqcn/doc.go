// Package dcqcn implements the DCQCN reaction point (the sender's rate
// control) in the Mellanox ConnectX-4 flavour, exactly as HPCC's ns-3
// simulator implements it with CC_MODE 1 (rdma-hw.cc: cnp_received_mlx,
// UpdateAlphaMlx, CheckRateDecreaseMlx, RateIncEventTimerMlx and the
// FastRecoveryMlx / ActiveIncreaseMlx / HyperIncreaseMlx steps). There is no
// byte counter.
//
// The package is pure state and arithmetic: time is passed in as int64
// picoseconds, there are no goroutines, timers or clocks, and no method of
// Sender allocates. The packet simulator keeps one Sender per flow and one
// pending event per flow at Sender.Next; the testbed's host senders drive the
// same code with their own (scaled) clock.
//
// # Model
//
// A flow starts at line rate with alpha = 1 and no timers. Every CNP sets an
// alpha flag and a decrease flag. The first CNP, at t0, sets alpha = 1, clears
// the alpha flag, sets target = rate = RateOnFirstCNP*rate and starts two
// periodic timers: the alpha update at t0 + k*AlphaInterval and the decrease
// check at t0 + FirstDecreaseDelay + k*DecreaseInterval (k >= 1).
//
//   - Alpha update: alpha = (1-g)*alpha + g if the alpha flag is set, else
//     (1-g)*alpha; the flag is cleared.
//   - Decrease check: only if the decrease flag is set: if ClampTarget or the
//     increase stage is not 0, target = rate; rate = max(MinRate,
//     rate*(1-alpha/2)); stage = 0; the flag is cleared and the increase timer
//     restarts to fire every IncreaseInterval from now.
//   - Increase timer: below FastRecoveryTimes, rate = rate/2 + target/2
//     (fast recovery); at FastRecoveryTimes, target += AI first (active
//     increase); above it, target += HAI (hyper increase); target is capped at
//     line rate; then stage++.
//
// Rates follow HPCC's integer arithmetic: a rate times a double truncates
// toward zero, and rate/2 + target/2 halves each term in integers. (So a
// recovering flow settles 1 bps below an even line rate, 2 bps below an odd
// one, exactly as in HPCC.)
//
// # Cost
//
// The alpha timer is never an event: alpha is computed in closed form (one
// flagged update, then a pure decay by (1-g)^(n-1)) when it is next needed, at
// a CNP or a decrease check. Decays of up to 16 steps are done by repeated
// multiplication, bit-identical to HPCC's per-event updates; longer ones use
// math.Pow and agree to about 1e-13 relative. The decrease check only matters while the
// decrease flag is set, so it is an action only then. Once further increase
// steps can no longer change rate or target (the flow is back at line rate in
// hyper increase) the increase timer is parked: Next reports math.MaxInt64
// and the flow costs nothing until its next CNP.
//
// # Event order
//
// Actions that fall on the same picosecond run in the order HPCC's ns-3 would
// run them (ns-3 orders equal times by insertion, that is by the time each
// event was scheduled):
//
//   - A CNP passed to OnCNP(t) is applied before every timer action at t that
//     has not run yet, that is, before Advance(t) runs them. (In ns-3 the
//     order of a packet arrival and a timer at the same instant depends on
//     insertion order; this package fixes it as CNP first.) Timer actions at
//     t that an earlier Advance(t) already ran are not redone: the CNP then
//     counts for the next alpha update and decrease check.
//   - An increase timer and a decrease check at the same picosecond (they
//     coincide with HPCC's constants: 300 µs = 75 * 4 µs) run increase first:
//     the increase was scheduled IncreaseInterval earlier, the check only
//     DecreaseInterval (+FirstDecreaseDelay) earlier. Validate requires
//     IncreaseInterval > DecreaseInterval + FirstDecreaseDelay so this holds.
//   - An alpha update and a decrease check at the same picosecond (impossible
//     with HPCC's 1 ns FirstDecreaseDelay, which exists to prevent it) run in
//     ns-3's scheduling order: the first check runs before the alpha update
//     if AlphaInterval < DecreaseInterval + FirstDecreaseDelay; a later check
//     runs first if DecreaseInterval > AlphaInterval, or if the intervals are
//     equal and FirstDecreaseDelay > 0; otherwise the alpha update runs first.
//
// Times passed to OnCNP and Advance must not decrease.
//
// # Changing the constants
//
// A NIC's constants may change while its flows run (a policy that sets the
// hosts' DCQCN every control interval): Sender.Rebase(now) on every Sender
// of the Params, then the new Params. The timers already armed fire when
// they were armed for; every later period, and every action from then on,
// uses the new constants, as on a NIC whose firmware re-reads them when it
// next arms a timer.
//
// # Settings
//
// Settings are the constants a person sets (the alpha gain, AI, HAI and the
// floor in Mbps, the three periods as durations); Settings.Apply checks
// them into Params, SettingsOf gives them back, and CheckLineRates refuses
// a floor above a fabric's host line rate.
package dcqcn
