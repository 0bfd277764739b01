package control

import (
	"fmt"

	"graphcc/topo"
)

// DefaultMissLimit is the miss limit the commands run the per-switch agents
// with (`--agent-misses` of sim and testbed run): three
// steps in a row with a neighbour's message late put an agent's ports on
// the static settings.
const DefaultMissLimit = 3

// Fallback is one per-switch agent's record of late messages, the one rule
// both fabrics' agents follow (docs/agents.md): once Limit steps in a row
// have had a neighbour's message late, the agent puts its own ports on the
// static settings (StaticSettings), and it goes back to its model's
// settings at the first step in which every message came in time. A Limit
// of 0 never falls back. The zero value never falls back and is ready to
// use.
type Fallback struct {
	// Limit is the miss limit: the steps in a row with a message late
	// after which the agent is on the static settings; 0 never.
	Limit  int
	streak int
	static bool
}

// CheckMissLimit refuses a negative miss limit; 0 means never.
func CheckMissLimit(limit int) error {
	if limit < 0 {
		return fmt.Errorf("miss limit %d: must not be negative (0 never falls back to the static settings)", limit)
	}
	return nil
}

// Step records the agent's step, late if a message of it was late, and
// reports whether the agent is on the static settings for it and whether
// that changed with this step.
func (fb *Fallback) Step(late bool) (static, changed bool) {
	if late {
		fb.streak++
	} else {
		fb.streak = 0
	}
	static = fb.Limit > 0 && fb.streak >= fb.Limit
	changed, fb.static = static != fb.static, static
	return static, changed
}

// Static reports whether the last step put the agent on the static
// settings.
func (fb *Fallback) Static() bool { return fb.static }

// Streak returns the steps in a row, up to the last, with a message late.
func (fb *Fallback) Streak() int { return fb.streak }

// Reset forgets the record, for a new run.
func (fb *Fallback) Reset() { fb.streak, fb.static = 0, false }

// Apply writes into ecn the setting of each of ports that the agent puts in
// force this step: chosen's (the model's) or, on the static settings,
// static's (all three indexed by topo.PortID).
func (fb *Fallback) Apply(ecn, chosen, static []ECN, ports []topo.PortID) {
	src := chosen
	if fb.static {
		src = static
	}
	for _, p := range ports {
		ecn[p] = src[p]
	}
}
