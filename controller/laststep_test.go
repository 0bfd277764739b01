package controller

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"graphcc/control"
	"graphcc/topo"
)

// TestStepRecorder records a step, flushes it and reads it back.
func TestStepRecorder(t *testing.T) {
	f, err := topo.Clos(topo.ClosConfig{Leaves: 2, Spines: 1, HostsPerLeaf: 2, HostRate: 25 * topo.Gbps, FabricRate: 100 * topo.Gbps, LinkDelay: topo.Microsecond, Buffer: 1 << 20})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if _, err := ReadLastStep(dir); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("ReadLastStep before a step: %v", err)
	}
	r := NewStepRecorder(dir, "static", f)
	r.Flush() // nothing recorded: no file
	if _, err := os.Stat(dir + "/" + LastStepFile); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("Flush before a step wrote a file: %v", err)
	}
	tel := &control.Telemetry{Now: 300 * topo.Microsecond, Interval: 100 * topo.Microsecond, Ports: make([]control.PortSample, len(f.Ports))}
	ecn := control.StaticSettings(f)
	r.Record(tel, ecn)
	r.Flush()
	last, err := ReadLastStep(dir)
	if err != nil {
		t.Fatal(err)
	}
	agents := f.Agents()
	if last.Policy != "static" || last.FabricUS != 300 || len(last.Ports) != len(agents) || last.Written.IsZero() {
		t.Fatalf("last step %+v", last)
	}
	p := last.Ports[0]
	if p.Port != agents[0] || p.KMax != ecn[agents[0]].KMax || p.Src != f.Nodes[f.Ports[agents[0]].Src].Name {
		t.Errorf("first port %+v", p)
	}
}

// TestReadLastStepCorrupt: a last step that is not JSON is an error naming
// the file, not an absent step.
func TestReadLastStepCorrupt(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, LastStepFile), []byte("{\"policy\": "), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := ReadLastStep(dir)
	if err == nil || errors.Is(err, os.ErrNotExist) || !strings.HasPrefix(err.Error(), LastStepFile+": ") {
		t.Errorf("ReadLastStep of a truncated file: %v, want an error naming %s", err, LastStepFile)
	}
}
