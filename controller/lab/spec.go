package lab

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"graphcc/internal/fileio"
	"graphcc/topo"
)

// SpecFile is the name of a lab's spec file inside its directory: the
// fabric the lab was built from, so that later commands (a run, status)
// rebuild the same Plan.
const SpecFile = "testbed.json"

// Spec is the fabric of a lab: a Clos, or an HPCC topology file's
// contents, then the links that failed, and the lab's scale.
type Spec struct {
	Clos     *topo.ClosConfig `json:"clos,omitempty"`
	Topology string           `json:"topology,omitempty"` // topology.txt contents, when the lab was built from one
	Buffer   int64            `json:"buffer_bytes"`
	Failed   []string         `json:"failed_links,omitempty"`
	Scale    int64            `json:"scale"`
}

// Fabric rebuilds the spec's fabric.
func (s *Spec) Fabric() (*topo.Fabric, error) {
	var f *topo.Fabric
	var err error
	switch {
	case s.Clos != nil:
		f, err = topo.Clos(*s.Clos)
	case s.Topology != "":
		f, err = topo.ReadTopology(strings.NewReader(s.Topology), SpecFile+" topology", s.Buffer)
	default:
		err = errors.New("no fabric")
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", SpecFile, err)
	}
	if len(s.Failed) > 0 {
		if f, err = f.FailLinks(s.Failed...); err != nil {
			return nil, fmt.Errorf("%s: %w", SpecFile, err)
		}
	}
	return f, nil
}

// WriteSpec writes s as the spec file of the lab directory dir, atomically.
func WriteSpec(dir string, s *Spec) error {
	return fileio.WriteAtomic(filepath.Join(dir, SpecFile), func(w io.Writer) error {
		return fileio.WriteJSON(w, s)
	})
}

// FailedLinks returns the names of the links of before that after lacks:
// a Spec's Failed for a fabric after built from before.
func FailedLinks(before, after *topo.Fabric) []string {
	have := make(map[string]bool, len(after.Links))
	for _, l := range after.Links {
		have[l.Name] = true
	}
	var out []string
	for _, l := range before.Links {
		if !have[l.Name] {
			out = append(out, l.Name)
		}
	}
	return out
}

// LoadSpec returns the live lab named lab in dir ("" for DefaultDir), its
// spec and the plan of the spec's fabric, checked against the lab's state
// (Check).
func LoadSpec(lab, dir string) (*Lab, *Spec, *Plan, error) {
	lb, err := Load(lab, dir)
	if err != nil {
		return nil, nil, nil, err
	}
	b, err := os.ReadFile(filepath.Join(lb.Dir(), SpecFile))
	if err != nil {
		return nil, nil, nil, fmt.Errorf("lab %s: %w (was it built by graphcc testbed up?)", lab, err)
	}
	var spec Spec
	if err := json.Unmarshal(b, &spec); err != nil {
		return nil, nil, nil, fmt.Errorf("lab %s: %s: %w", lab, SpecFile, err)
	}
	f, err := spec.Fabric()
	if err != nil {
		return nil, nil, nil, fmt.Errorf("lab %s: %w", lab, err)
	}
	plan, err := NewPlan(lab, f)
	if err != nil {
		return nil, nil, nil, err
	}
	if err := lb.Check(plan); err != nil {
		return nil, nil, nil, err
	}
	return lb, &spec, plan, nil
}

// WritePipelineJSON writes the BMv2 JSON cfg into the lab directory dir
// (creating it) as graphcc.json, for Config.PipelineJSON, and returns its
// path.
func WritePipelineJSON(dir string, cfg []byte) (string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	path := filepath.Join(dir, "graphcc.json")
	err := fileio.WriteAtomic(path, func(w io.Writer) error { _, err := w.Write(cfg); return err })
	return path, err
}
