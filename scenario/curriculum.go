package scenario

import (
	"errors"
	"fmt"
	"math/rand/v2"

	"graphcc/topo"
	"graphcc/trace"
)

// Curriculum is a training mix of scenarios on one fabric: each episode
// seed picks one of them (Pick), so that one model learns every regime of
// the mix rather than the one constant that suits a single scenario.
// Its scenarios share their fabric before failures, link for link; their
// failures (named or random) make variants of it, which a trainer maps
// back onto Fabric.
type Curriculum struct {
	Scenarios []Scenario
	fabric    *topo.Fabric
}

// CurriculumName is the name of the built-in curriculum
// (DefaultCurriculum) where the CLI takes scenario names.
const CurriculumName = "curriculum"

// NewCurriculum checks that scs are one or more scenarios on one fabric
// (the first's, before failures: the same links in the same order) and
// returns their curriculum.
func NewCurriculum(scs []Scenario) (*Curriculum, error) {
	if len(scs) == 0 {
		return nil, errors.New("curriculum: no scenario")
	}
	ref, err := scs[0].BaseFabric()
	if err != nil {
		return nil, fmt.Errorf("curriculum: scenario %s: %w", scs[0].Name, err)
	}
	seen := map[string]bool{}
	for _, s := range scs {
		if seen[s.Name] {
			return nil, fmt.Errorf("curriculum: scenario %s given twice", s.Name)
		}
		seen[s.Name] = true
		f, err := s.BaseFabric()
		if err != nil {
			return nil, fmt.Errorf("curriculum: scenario %s: %w", s.Name, err)
		}
		if err := f.SameLinks(ref); err != nil {
			return nil, fmt.Errorf("curriculum: scenario %s is not on %s's fabric: %w", s.Name, scs[0].Name, err)
		}
	}
	return &Curriculum{Scenarios: scs, fabric: ref}, nil
}

// DefaultCurriculum returns the curriculum of the built-in suite's
// scenarios on its training fabric: every one but those of other fabrics
// (flat8, flat12) and those held out of training (HeldOut).
func DefaultCurriculum() *Curriculum {
	ref, err := Default().BaseFabric()
	if err != nil {
		panic(fmt.Sprintf("scenario: the default scenario's fabric: %v", err))
	}
	var scs []Scenario
	for _, s := range Suite() {
		if f, err := s.BaseFabric(); err == nil && f.SameLinks(ref) == nil && !s.HeldOut {
			scs = append(scs, s)
		}
	}
	c, err := NewCurriculum(scs)
	if err != nil {
		panic(fmt.Sprintf("scenario: the default curriculum: %v", err))
	}
	return c
}

// Fabric returns the curriculum's fabric before failures, which every
// episode's fabric is, or is a variant of without some links.
func (c *Curriculum) Fabric() *topo.Fabric { return c.fabric }

// Names returns the names of the curriculum's scenarios, in order.
func (c *Curriculum) Names() []string {
	out := make([]string, len(c.Scenarios))
	for i, s := range c.Scenarios {
		out[i] = s.Name
	}
	return out
}

// Pick returns the scenario of episode seed: one of the curriculum's,
// uniformly at random from a PCG stream of the seed of its own (so that
// the scenario's own use of the seed is untouched).
func (c *Curriculum) Pick(seed uint64) Scenario {
	r := rand.New(rand.NewPCG(seed, 0x63757272696375)) // "curricu"
	return c.Scenarios[r.IntN(len(c.Scenarios))]
}

// Build makes the fabric and flows of episode seed: those of Pick(seed)
// for seed.
func (c *Curriculum) Build(seed uint64) (*topo.Fabric, []trace.Flow, error) {
	return c.Pick(seed).Build(seed)
}

// LinkEvents returns the link events of episode seed on f, its fabric
// (Build): those of Pick(seed).
func (c *Curriculum) LinkEvents(seed uint64, f *topo.Fabric) ([]topo.LinkEvent, error) {
	return c.Pick(seed).LinkEvents(f)
}
