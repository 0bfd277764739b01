package p4src

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"graphcc/internal/privtest"
)

// requireBinary returns the path of a program on PATH, or skips the test
// naming it (privtest).
func requireBinary(t *testing.T, name string) string { return privtest.Program(t, name, "p4lang/p4c") }

// The committed graphcc.json and graphcc.p4info.txtpb are what `make p4`
// makes of graphcc.p4 now.
func TestCompiledArtifactsCurrent(t *testing.T) {
	p4c := requireBinary(t, "p4c-bm2-ss")
	out := t.TempDir()
	json, info := filepath.Join(out, "graphcc.json"), filepath.Join(out, "graphcc.p4info.txtpb")
	// From the repository root with the same relative source path as the
	// Makefile: the JSON records it.
	cmd := exec.Command(p4c, "--arch", "v1model", "--std", "p4-16", "--p4runtime-files", info, "-o", json, "p4src/graphcc.p4")
	cmd.Dir = ".."
	if msg, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%s: %v\n%s", cmd, err, msg)
	}
	for _, c := range []struct {
		file     string
		embedded []byte
	}{{json, BMv2JSON}, {info, P4Info}} {
		got, err := os.ReadFile(c.file)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, c.embedded) {
			t.Errorf("p4src/%s is not what p4c-bm2-ss makes of graphcc.p4: run make p4", filepath.Base(c.file))
		}
	}
}
