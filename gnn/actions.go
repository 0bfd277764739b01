package gnn

import (
	"fmt"
	"math"

	"graphcc/control"
	"graphcc/topo"
)

// The GraphCC action space: every agent picks one ECN setting per control
// interval out of NumActions. The levels are those of the GraphCC paper, in
// KB of 1000 bytes at ActionRefRate.
var (
	// ActionKMinKB are the kmin levels, KB at ActionRefRate.
	ActionKMinKB = [...]int64{2, 4, 8, 16, 32}
	// ActionKMaxKB are the kmax levels, KB at ActionRefRate.
	ActionKMaxKB = [...]int64{16, 32, 64, 128, 256}
	// ActionPMax are the pmax levels.
	ActionPMax = [...]float64{0.01, 0.25, 0.5, 0.75, 1.0}
)

// ActionRefRate is the port rate at which the action thresholds hold as
// listed. A port of rate R uses thresholds scaled by R/ActionRefRate (so a
// 100 Gbps port gets 4x), the same per-bandwidth scaling as Alibaba's static
// thresholds (control.Alibaba): a threshold is then the same queueing delay
// on every port, and one table serves host-facing and fabric ports alike.
const ActionRefRate = 25 * topo.Gbps

// NumPairs is the number of (kmin, kmax) pairs with kmin <= kmax.
const NumPairs = 24

// NumActions is the size of the action space: NumPairs × len(ActionPMax).
const NumActions = NumPairs * len(ActionPMax)

// ActionTableID identifies the action table: its levels, the reference rate
// of the scaling and the order of the actions. A model file records it and
// refuses to load a model trained on another table. It must be changed
// whenever anything it describes changes (a test checks it against the
// tables).
const ActionTableID = "graphcc-ecn-actions/v1 kmin=2,4,8,16,32KB kmax=16,32,64,128,256KB pmax=0.01,0.25,0.5,0.75,1 ref=25Gbps order=pair-major(kmin,kmax)-then-pmax"

// ExtendedActionTableID identifies the extended action table
// (ActionsExtended), as ActionTableID the paper's.
const ExtendedActionTableID = "graphcc-ecn-actions/extended-v1 kmin=0,2,8,32,64KB kmax=4,16,32,64,256,512KB pmax=0.01,0.25,0.5,0.75,1 ref=25Gbps order=pair-major(kmin,kmax)-then-pmax"

// The extended table's levels (ActionsExtended), KB at ActionRefRate: what
// the searches of issue 23 found beyond the paper's grid, marking from an
// empty queue with a kmax of 4 KB for RPC-like traffic and light marking
// up to 512 KB for WebSearch-like traffic, with the paper grid's leaders
// (2,16,1; 2,32,0.01; 32,256,0.75) kept. Its 24 pairs with kmin <= kmax
// and the paper's pmax levels give NumActions settings, so one network
// shape serves both tables.
var (
	ExtendedKMinKB = [...]int64{0, 2, 8, 32, 64}
	ExtendedKMaxKB = [...]int64{4, 16, 32, 64, 256, 512}
)

// RPCActionTableID identifies the rpc action table (ActionsRPC).
const RPCActionTableID = "graphcc-ecn-actions/rpc-v1 kmin=0,2,8,32,128KB kmax=1,4,16,32,64,256,512KB pmax=0.01,0.25,0.5,0.75,1 ref=25Gbps order=pair-major(kmin,kmax)-then-pmax"

// The rpc table's levels (ActionsRPC), KB at ActionRefRate: the extended
// table with a kmax of 1 KB, which GoogleRPC-like traffic wants (its joint
// tune marks from 0.5 KB; the extended table's 4 KB floor costs it 2.5 %),
// and kmin 128 KB in place of 64 KB to keep NumPairs pairs; every other
// level of the extended table stays.
var (
	RPCKMinKB = [...]int64{0, 2, 8, 32, 128}
	RPCKMaxKB = [...]int64{1, 4, 16, 32, 64, 256, 512}
)

// ActionSet names an action table: the ECN settings every agent picks
// from. Both sets have NumActions settings in the same order (pair-major
// in increasing (kmin, kmax), then pmax), so a network of one shape serves
// either; a model file records its set's table (action_table) and is run
// with it. The zero value is ActionsPaper.
type ActionSet int

const (
	// ActionsPaper is the GraphCC paper's table (ActionTableID), the
	// shipped model's.
	ActionsPaper ActionSet = iota
	// ActionsExtended is the extended table (ExtendedActionTableID).
	ActionsExtended
	// ActionsRPC is the extended table with a 1 KB kmax (RPCActionTableID).
	ActionsRPC
)

// ActionSets lists the action sets, in order.
func ActionSets() []ActionSet { return []ActionSet{ActionsPaper, ActionsExtended, ActionsRPC} }

// String returns the set's name: paper, extended or rpc.
func (s ActionSet) String() string {
	switch s {
	case ActionsPaper:
		return "paper"
	case ActionsExtended:
		return "extended"
	case ActionsRPC:
		return "rpc"
	}
	return fmt.Sprintf("ActionSet(%d)", int(s))
}

// ParseActionSet returns the set named name (String).
func ParseActionSet(name string) (ActionSet, error) {
	for _, s := range ActionSets() {
		if s.String() == name {
			return s, nil
		}
	}
	return 0, fmt.Errorf("unknown action set %q (want paper, extended or rpc)", name)
}

// TableID returns the identifier a model file records for the set.
func (s ActionSet) TableID() string {
	switch s {
	case ActionsExtended:
		return ExtendedActionTableID
	case ActionsRPC:
		return RPCActionTableID
	}
	return ActionTableID
}

// ActionSetOfTable returns the set whose table id is, or an error naming
// the tables this build knows.
func ActionSetOfTable(id string) (ActionSet, error) {
	for _, s := range ActionSets() {
		if s.TableID() == id {
			return s, nil
		}
	}
	return 0, fmt.Errorf("unknown action table %q (this build knows %q, %q and %q)", id, ActionTableID, ExtendedActionTableID, RPCActionTableID)
}

// actionTable is one set's levels and its pairs.
type actionTable struct {
	kmin, kmax []int64
	pairs      [NumPairs][2]uint8 // (kmin, kmax) level indices, increasing
}

// tables holds every set's table, by ActionSet.
var tables = [...]actionTable{
	ActionsPaper:    newActionTable(ActionKMinKB[:], ActionKMaxKB[:]),
	ActionsExtended: newActionTable(ExtendedKMinKB[:], ExtendedKMaxKB[:]),
	ActionsRPC:      newActionTable(RPCKMinKB[:], RPCKMaxKB[:]),
}

// newActionTable lists the (kmin, kmax) level indices of every pair with
// kmin <= kmax, in increasing (kmin, kmax) order; it panics unless there
// are NumPairs.
func newActionTable(kmin, kmax []int64) actionTable {
	t := actionTable{kmin: kmin, kmax: kmax}
	n := 0
	for i, lo := range kmin {
		for j, hi := range kmax {
			if lo <= hi {
				if n < NumPairs {
					t.pairs[n] = [2]uint8{uint8(i), uint8(j)}
				}
				n++
			}
		}
	}
	if n != NumPairs {
		panic(fmt.Sprintf("gnn: action table has %d pairs, want %d", n, NumPairs))
	}
	return t
}

// Levels returns the level values of action a of the set at ActionRefRate:
// kmin and kmax in KB and pmax, in the order ActionLevels documents. It
// panics if a is not in [0, NumActions).
func (s ActionSet) Levels(a int) (kminKB, kmaxKB int64, pmax float64) {
	if a < 0 || a >= NumActions {
		panic(fmt.Sprintf("gnn: action %d is outside [0, %d)", a, NumActions))
	}
	t := &tables[s]
	pr := t.pairs[a/len(ActionPMax)]
	return t.kmin[pr[0]], t.kmax[pr[1]], ActionPMax[a%len(ActionPMax)]
}

// Setting returns the ECN setting of action a of the set on a port of the
// given rate (bps): its thresholds in bytes scaled by rate/ActionRefRate
// and rounded to whole bytes, as Action.
func (s ActionSet) Setting(a int, rate int64) control.ECN {
	kmin, kmax, pmax := s.Levels(a)
	sc := rateScale(rate)
	return control.ECN{KMin: scaleKB(kmin, sc), KMax: scaleKB(kmax, sc), PMax: pmax}
}

// ActionLevels returns the level values of action a of the paper's table
// at ActionRefRate: kmin and kmax in KB and pmax. The order of the actions is pair-major: a =
// pair*len(ActionPMax) + k where k indexes ActionPMax and pair indexes the
// 24 pairs (kmin, kmax) with kmin <= kmax in increasing (kmin, kmax) order:
// (2,16), (2,32), …, (2,256), (4,16), …, (16,256), (32,32), …, (32,256).
// So action 0 is (2 KB, 16 KB, 0.01) and action 119 is (32 KB, 256 KB, 1).
func ActionLevels(a int) (kminKB, kmaxKB int64, pmax float64) { return ActionsPaper.Levels(a) }

// rateScale returns rate/ActionRefRate.
func rateScale(rate int64) float64 { return float64(rate) / float64(ActionRefRate) }

// scaleKB returns kb KB scaled by s, in whole bytes.
func scaleKB(kb int64, s float64) int64 { return int64(math.Round(float64(kb*control.KB) * s)) }

// Action returns the ECN setting of action a of the paper's table on a
// port of the given rate (bps): the thresholds of ActionLevels in bytes
// (KB = 1000 B), scaled by rate/ActionRefRate and rounded to whole bytes.
// It panics if a is not in [0, NumActions).
func Action(a int, rate int64) control.ECN { return ActionsPaper.Setting(a, rate) }

// MaxKMax returns the largest kmax of any action set on a port of rate
// bps: the deepest queue a learned policy may ask of that port (a testbed
// lab sizes its queues with it: lab.Config.MaxKMax).
func MaxKMax(rate int64) int64 {
	var kmax int64
	for _, s := range ActionSets() {
		for a := range NumActions {
			kmax = max(kmax, s.Setting(a, rate).KMax)
		}
	}
	return kmax
}

// Nearest returns the action of s whose setting on a port of the given rate
// is closest to e. Thresholds are compared on a log2 scale after dividing by
// the rate scale (the levels are powers of two), pmax linearly in units of
// 0.25 (about one level), so that one step of any of the three counts about
// the same:
//
//	d = (log2 kmin/kmin_a)^2 + (log2 kmax/kmax_a)^2 + ((pmax-pmax_a)/0.25)^2
//
// Thresholds below 1 byte count as 1 byte. Ties go to the lower action.
// s.Nearest(s.Setting(a, rate), rate) == a for every action.
func (s ActionSet) Nearest(e control.ECN, rate int64) int {
	sc := rateScale(rate)
	lmin := math.Log2(max(float64(e.KMin), 1))
	lmax := math.Log2(max(float64(e.KMax), 1))
	best, bestD := 0, math.Inf(1)
	for a := range NumActions {
		kmin, kmax, pmax := s.Levels(a)
		dmin := lmin - math.Log2(max(float64(scaleKB(kmin, sc)), 1))
		dmax := lmax - math.Log2(max(float64(scaleKB(kmax, sc)), 1))
		dp := (e.PMax - pmax) / 0.25
		if d := dmin*dmin + dmax*dmax + dp*dp; d < bestD {
			best, bestD = a, d
		}
	}
	return best
}

// Replay buffers store actions as uint8.
var _ = [1]struct{}{}[(NumActions-1)>>8]
