package controller

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"graphcc/control"
	"graphcc/internal/fileio"
	"graphcc/topo"
)

// LastStepFile is the name of the file, in a lab's directory, that holds
// the last control step of a run (LastStep), for a status display.
const LastStepFile = "last-step.json"

// LastStep is the last control step of a run: the settings and telemetry
// of every agent port.
type LastStep struct {
	Policy   string         `json:"policy"`
	Written  time.Time      `json:"written"`
	FabricUS float64        `json:"fabric_time_us"`
	Ports    []LastStepPort `json:"ports"`
}

// LastStepPort is one agent port of a LastStep.
type LastStepPort struct {
	Port         topo.PortID `json:"port"`
	Src          string      `json:"src"`
	Dst          string      `json:"dst"`
	KMin         int64       `json:"kmin_bytes"`
	KMax         int64       `json:"kmax_bytes"`
	PMax         float64     `json:"pmax"`
	Utilization  float64     `json:"utilization"`
	MarkingRate  float64     `json:"marking_rate"`
	QueueFeature float64     `json:"queue_feature_bytes"`
}

// ReadLastStep reads the last control step a StepRecorder wrote into the
// lab directory dir. Before a run has recorded one, or after the lab was
// taken down, the error is an fs.ErrNotExist.
func ReadLastStep(dir string) (*LastStep, error) {
	b, err := os.ReadFile(filepath.Join(dir, LastStepFile))
	if err != nil {
		return nil, err
	}
	var last LastStep
	if err := json.Unmarshal(b, &last); err != nil {
		return nil, fmt.Errorf("%s: %w", LastStepFile, err)
	}
	return &last, nil
}

// A StepRecorder keeps the last control step of a run in a lab directory's
// LastStepFile: Record is a WorkloadConfig.OnStep, writing the file at
// most once a second; Flush writes the last step at the end.
type StepRecorder struct {
	path   string
	policy string
	f      *topo.Fabric
	when   time.Time
	snap   LastStep
}

// NewStepRecorder returns the recorder of policy's run on fabric f for
// the lab directory dir.
func NewStepRecorder(dir, policy string, f *topo.Fabric) *StepRecorder {
	return &StepRecorder{path: filepath.Join(dir, LastStepFile), policy: policy, f: f}
}

// Record keeps the step of telemetry t and settings ecn, and writes it if
// the last write is a second old.
func (l *StepRecorder) Record(t *control.Telemetry, ecn []control.ECN) {
	l.snap = LastStep{Policy: l.policy, FabricUS: float64(t.Now) / float64(topo.Microsecond), Ports: l.snap.Ports[:0]}
	for _, p := range l.f.Agents() {
		pt, s := l.f.Ports[p], &t.Ports[p]
		l.snap.Ports = append(l.snap.Ports, LastStepPort{
			Port: p, Src: l.f.Nodes[pt.Src].Name, Dst: l.f.Nodes[pt.Dst].Name,
			KMin: ecn[p].KMin, KMax: ecn[p].KMax, PMax: ecn[p].PMax,
			Utilization: s.Utilization(pt.Rate, t.Interval), MarkingRate: s.MarkingRate(pt.Rate, t.Interval),
			QueueFeature: s.QueueFeature(),
		})
	}
	if time.Since(l.when) >= time.Second {
		l.Flush()
	}
}

// Flush writes the last step recorded, if any. It is best effort: a
// status display is a convenience, and a run must not fail on it.
func (l *StepRecorder) Flush() {
	if l.snap.Ports == nil {
		return
	}
	l.when = time.Now()
	l.snap.Written = l.when.UTC()
	fileio.WriteAtomic(l.path, func(w io.Writer) error { return fileio.WriteJSON(w, l.snap) })
}
