package learn

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	"graphcc/gnn"
)

// ReplayBuffer holds the most recent global transitions of a multi-agent
// episode, for Q-learning from minibatches. A transition is what one control
// interval gives every agent at once: the features of every port at t
// (ports × features per port, the state the actions were chosen in), every agent's
// action, every agent's reward, and the features at t+1.
//
// It is a ring of fixed capacity: once full, each Add overwrites the oldest
// transition. A transition is addressed by its slot, an index in [0, Len());
// a slot keeps its transition until Add overwrites it (slot i is written by
// the Adds number i, i+Cap(), i+2*Cap(), … counting from 0).
//
// A transition may be tagged with the fabric it was taken on (AddOn): a
// string the trainer defines, the names of the links that had failed, ""
// for the reference fabric. Fabrics lists the tags in order of first use.
//
// Features and rewards are stored as float32 to halve the memory (the
// features are in [0, 4] and lose nothing that matters; accessors widen them
// back to float64), actions as uint8 (gnn.NumActions < 256; 255 is NoAction). A transition takes
// 4*(2*ports*gnn.NumFeatures + agents) + agents + 2 bytes: about 4.8 KB for the
// GraphCC Clos (64 ports, 48 agents), so 100 000 transitions take about
// 480 MB. Storage is allocated once by NewReplayBuffer; Add does not
// allocate.
type ReplayBuffer struct {
	cap, featLen, agents int
	n, next              int // transitions held; slot the next Add writes
	added                int64
	feat, nextFeat       []float32 // cap × featLen
	actions              []uint8   // cap × agents
	rewards              []float32 // cap × agents
	fab                  []uint16  // cap: an index in fabrics
	fabrics              []string  // fabric tags, "" first
}

// maxFabrics bounds the distinct fabric tags of a buffer.
const maxFabrics = math.MaxUint16 + 1

// NewReplayBuffer returns an empty buffer of capacity transitions, each of
// ports × gnn.NumFeatures features (the paper's set) and one action and reward
// per agent.
func NewReplayBuffer(capacity, ports, agents int) *ReplayBuffer {
	if capacity < 1 || ports < 1 || agents < 1 {
		panic(fmt.Sprintf("learn: replay buffer of capacity %d for %d ports and %d agents", capacity, ports, agents))
	}
	return NewReplayBufferLen(capacity, ports*gnn.NumFeatures, agents)
}

// NewReplayBufferLen returns an empty buffer of capacity transitions, each
// of featureLen features (ports × the features per port of any set, or
// ACC's state) and one action and reward per agent.
func NewReplayBufferLen(capacity, featureLen, agents int) *ReplayBuffer {
	if capacity < 1 || featureLen < 1 || agents < 1 {
		panic(fmt.Sprintf("learn: replay buffer of capacity %d for %d features and %d agents", capacity, featureLen, agents))
	}
	fl := featureLen
	return &ReplayBuffer{
		cap: capacity, featLen: fl, agents: agents,
		feat:     make([]float32, capacity*fl),
		nextFeat: make([]float32, capacity*fl),
		actions:  make([]uint8, capacity*agents),
		rewards:  make([]float32, capacity*agents),
		fab:      make([]uint16, capacity),
		fabrics:  []string{""},
	}
}

// Len returns the number of transitions held, at most Cap().
func (b *ReplayBuffer) Len() int { return b.n }

// Cap returns the capacity.
func (b *ReplayBuffer) Cap() int { return b.cap }

// Added returns the number of Add calls so far (overwritten ones included).
func (b *ReplayBuffer) Added() int64 { return b.added }

// Agents returns the number of agents per transition.
func (b *ReplayBuffer) Agents() int { return b.agents }

// FeatureLen returns the number of features per state (ports × features
// per port).
func (b *ReplayBuffer) FeatureLen() int { return b.featLen }

// Reset empties the buffer (its storage is kept) and forgets its fabric
// tags.
func (b *ReplayBuffer) Reset() { b.n, b.next, b.added, b.fabrics = 0, 0, 0, b.fabrics[:1] }

// Fabrics returns the fabric tags of the transitions added since the
// buffer was made or Reset, in order of first use: "" (the reference) first.
// Do not modify it.
func (b *ReplayBuffer) Fabrics() []string { return b.fabrics[:len(b.fabrics):len(b.fabrics)] }

// Fabric returns the index in Fabrics of the tag of the transition in slot
// i.
func (b *ReplayBuffer) Fabric(i int) int {
	b.slot(i)
	return int(b.fab[i])
}

func narrow(dst []float32, src []float64) {
	dst = dst[:len(src)]
	for i, v := range src {
		dst[i] = float32(v)
	}
}

func widen(dst []float64, src []float32) {
	dst = dst[:len(src)]
	for i, v := range src {
		dst[i] = float64(v)
	}
}

// NoAction is the action of an agent that did not act in a transition (an
// ACC agent whose port's link had failed in that episode); the update
// leaves it out.
const NoAction = -1

// noAction is NoAction as the buffer stores it.
const noAction = math.MaxUint8

// Add stores a transition and returns its slot: features at t (len
// FeatureLen()), the agents' actions (each in [0, gnn.NumActions), or NoAction)
// and rewards (len Agents()), features at t+1. The inputs are copied.
func (b *ReplayBuffer) Add(features []float64, actions []int, rewards []float64, next []float64) int {
	return b.AddOn("", features, actions, rewards, next)
}

// AddOn is Add for a transition taken on the fabric tagged fabric. A tag
// not seen before is appended to Fabrics (at most 65536 tags).
func (b *ReplayBuffer) AddOn(fabric string, features []float64, actions []int, rewards []float64, next []float64) int {
	k := slices.Index(b.fabrics, fabric)
	if k < 0 {
		if len(b.fabrics) == maxFabrics {
			panic(fmt.Sprintf("learn: replay buffer of more than %d fabrics", maxFabrics))
		}
		k = len(b.fabrics)
		b.fabrics = append(b.fabrics, fabric)
	}
	checkLen("transition features", len(features), b.featLen)
	checkLen("transition next features", len(next), b.featLen)
	checkLen("transition actions", len(actions), b.agents)
	checkLen("transition rewards", len(rewards), b.agents)
	i := b.next
	act := b.actions[i*b.agents : (i+1)*b.agents]
	for j, a := range actions {
		switch {
		case a == NoAction:
			act[j] = noAction
		case a < 0 || a >= gnn.NumActions:
			panic(fmt.Sprintf("learn: transition action %d of agent %d is outside [0, %d)", a, j, gnn.NumActions))
		default:
			act[j] = uint8(a)
		}
	}
	narrow(b.feat[i*b.featLen:(i+1)*b.featLen], features)
	narrow(b.nextFeat[i*b.featLen:(i+1)*b.featLen], next)
	narrow(b.rewards[i*b.agents:(i+1)*b.agents], rewards)
	b.fab[i] = uint16(k)
	b.next++
	if b.next == b.cap {
		b.next = 0
	}
	if b.n < b.cap {
		b.n++
	}
	b.added++
	return i
}

// Sample appends to dst[:0] n slots drawn uniformly with replacement from
// [0, Len()) using r only, and returns it: the same source state gives the
// same slots. It allocates only if dst is shorter than n. It panics on an
// empty buffer.
func (b *ReplayBuffer) Sample(r *rand.Rand, n int, dst []int) []int {
	if b.n == 0 {
		panic("learn: sample from an empty replay buffer")
	}
	dst = dst[:0]
	for range n {
		dst = append(dst, r.IntN(b.n))
	}
	return dst
}

func (b *ReplayBuffer) slot(i int) {
	if i < 0 || i >= b.n {
		panic(fmt.Sprintf("learn: replay slot %d is outside [0, %d)", i, b.n))
	}
}

// Features copies the features at t of slot i into dst (len FeatureLen()).
func (b *ReplayBuffer) Features(i int, dst []float64) {
	b.slot(i)
	checkLen("features", len(dst), b.featLen)
	widen(dst, b.feat[i*b.featLen:(i+1)*b.featLen])
}

// NextFeatures copies the features at t+1 of slot i into dst (len
// FeatureLen()).
func (b *ReplayBuffer) NextFeatures(i int, dst []float64) {
	b.slot(i)
	checkLen("next features", len(dst), b.featLen)
	widen(dst, b.nextFeat[i*b.featLen:(i+1)*b.featLen])
}

// Actions copies the agents' actions of slot i into dst (len Agents()),
// NoAction for an agent that did not act.
func (b *ReplayBuffer) Actions(i int, dst []int) {
	b.slot(i)
	checkLen("actions", len(dst), b.agents)
	for j, a := range b.actions[i*b.agents : (i+1)*b.agents] {
		dst[j] = int(a)
		if a == noAction {
			dst[j] = NoAction
		}
	}
}

// Acting returns the number of agents of slot i with an action (not
// NoAction).
func (b *ReplayBuffer) Acting(i int) int {
	b.slot(i)
	n := 0
	for _, a := range b.actions[i*b.agents : (i+1)*b.agents] {
		if a != noAction {
			n++
		}
	}
	return n
}

// Rewards copies the agents' rewards of slot i into dst (len Agents()).
func (b *ReplayBuffer) Rewards(i int, dst []float64) {
	b.slot(i)
	checkLen("rewards", len(dst), b.agents)
	widen(dst, b.rewards[i*b.agents:(i+1)*b.agents])
}

// checkLen panics with a "learn: …" message if a length is not the one
// wanted: a programming error, as in gnn.
func checkLen(what string, got, want int) {
	if got != want {
		panic(fmt.Sprintf("learn: %s has length %d, want %d", what, got, want))
	}
}
