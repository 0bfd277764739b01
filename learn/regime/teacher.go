package regime

import (
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"graphcc/internal/fileio"
	"graphcc/policy"
	"graphcc/scenario"
	"graphcc/topo"
	"graphcc/workload"
)

// Teacher returns the teacher of sc by t: for a stationary scenario the
// label of its regime (the base if it has none), for a phased one the
// label of each phase's regime from the phase's start, as a sched: spec
// with a step where the label changes (the label itself if it never
// does). The labels of a phased scenario must all set the hosts' DCQCN
// constants (+dcqcn:) or none of them.
func (t Table) Teacher(sc scenario.Scenario) (string, error) {
	g := sc.Gen
	if len(g.Phases) == 0 {
		return t.phaseLabel(workload.Phase{Workload: g.Workload, Load: g.Load, Incast: g.Incast}), nil
	}
	starts := sc.PhaseStarts()
	var steps []string
	last, hosts := "", 0
	for i, p := range g.Phases {
		l := t.phaseLabel(p)
		if i > 0 && l == last {
			continue
		}
		step, err := fixedStep(l)
		if err != nil {
			return "", fmt.Errorf("scenario %s: phase %d: %w", sc.Name, i, err)
		}
		if strings.Contains(step, "/") {
			hosts++
		}
		steps = append(steps, topo.FormatDuration(starts[i])+"="+step)
		last = l
	}
	if len(steps) == 1 {
		return last, nil
	}
	if hosts != 0 && hosts != len(steps) {
		return "", fmt.Errorf("scenario %s: labels with and without the hosts' DCQCN constants: a schedule needs them in every step or none", sc.Name)
	}
	return policy.Canonical("sched:" + strings.Join(steps, ":")), nil
}

// phaseLabel returns the label of p's regime, the base without one.
func (t Table) phaseLabel(p workload.Phase) string {
	if r, ok := Of(p); ok {
		return t.Label(r)
	}
	return t.Base
}

// teacherFile is a file of WriteTeacher: what policy's tuned:DIR reads
// from a tune result (scenario, best_policy), and a note of where it
// comes from.
type teacherFile struct {
	Scenario   string `json:"scenario"`
	BestPolicy string `json:"best_policy"`
	Note       string `json:"note"`
}

// WriteTeacher writes into the directory dir (which must exist) the
// teacher of each scenario of scs by t (Teacher), as the best_policy of
// a file NAME.json with note, so that tuned:DIR plays it on each of them
// (graphcc train --teacher tuned:DIR). It returns the files' paths.
func WriteTeacher(dir string, t Table, scs []scenario.Scenario, note string) ([]string, error) {
	var paths []string
	for _, sc := range scs {
		best, err := t.Teacher(sc)
		if err != nil {
			return nil, err
		}
		path := filepath.Join(dir, sc.Name+policy.TunedExt)
		f := teacherFile{Scenario: sc.Name, BestPolicy: best, Note: note}
		if err := fileio.WriteAtomic(path, func(w io.Writer) error { return fileio.WriteJSON(w, f) }); err != nil {
			return nil, fmt.Errorf("teacher of %s: %w", sc.Name, err)
		}
		paths = append(paths, path)
	}
	return paths, nil
}
