package experiment

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestOpenParts: the part files of paths open in order, and a missing or
// damaged one is refused, naming it.
func TestOpenParts(t *testing.T) {
	c := tinyEval()
	dir := t.TempDir()
	var paths []string
	for _, p := range evalParts(t, c, 2) {
		var b bytes.Buffer
		if err := WritePart(&b, p.Part); err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(dir, p.name)
		if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		paths = append(paths, path)
	}
	damaged := filepath.Join(dir, "damaged.json")
	if err := os.WriteFile(damaged, []byte("{\"kind\": 7"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		paths []string
		err   string
	}{
		{paths, ""},
		{append(paths[:1:1], filepath.Join(dir, "missing.json")), "missing.json: no such file"},
		{append(paths[:1:1], damaged), damaged + ": "},
	} {
		parts, closeAll, err := OpenParts(tc.paths)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("OpenParts(%q): %v, want %q", tc.paths, err, tc.err)
			}
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		for i, p := range parts {
			if p.Name() != tc.paths[i] || p.Shard != (Shard{i, 2}) {
				t.Errorf("part %d: %s, shard %v", i, p.Name(), p.Shard)
			}
		}
		closeAll()
	}
}
