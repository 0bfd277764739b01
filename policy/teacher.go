package policy

import (
	"context"
	"fmt"

	"graphcc/control"
	"graphcc/scenario"
	"graphcc/topo"
)

// A Teacher is the policy an imitating trainer's agents learn to copy
// (learn.Config's TeacherName and Teacher).
type Teacher struct {
	// Name is the policy's (Named.Name).
	Name string
	// New makes the policy of an episode of seed on fabric f.
	New func(f *topo.Fabric, seed uint64) (control.Policy, []control.ECN, error)
}

// NewTeacher returns the teacher of spec, an ECN control policy
// (ParseControl) in env, checked on every scenario of scs (Named.Check):
// an episode of seed has the policy of spec on the scenario it runs,
// pick(seed) (a curriculum's pick), or scs[0] when pick is nil. name (a
// flag, "--teacher") heads its errors.
func NewTeacher(ctx context.Context, name, spec string, env Env, scs []scenario.Scenario, pick func(seed uint64) scenario.Scenario) (Teacher, error) {
	named, err := ParseControl(ctx, spec, env)
	if err != nil {
		return Teacher{}, fmt.Errorf("%s: %w", name, err)
	}
	for _, sc := range scs {
		if named.Check == nil {
			break
		}
		if err := named.Check(sc); err != nil {
			return Teacher{}, fmt.Errorf("%s %s: scenario %s: %w", name, spec, sc.Name, err)
		}
	}
	return Teacher{Name: named.Name, New: func(f *topo.Fabric, seed uint64) (control.Policy, []control.ECN, error) {
		sc := scs[0]
		if pick != nil {
			sc = pick(seed)
		}
		return named.New(f, sc, seed)
	}}, nil
}
