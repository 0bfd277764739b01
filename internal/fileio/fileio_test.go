package fileio

import (
	"bytes"
	"errors"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// dirEntries lists the names in dir.
func dirEntries(t *testing.T, dir string) []string {
	t.Helper()
	es, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range es {
		names = append(names, e.Name())
	}
	return names
}

func TestWriteFileAtomic(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "summary.json")
	if err := WriteAtomic(path, func(w io.Writer) error { return WriteJSON(w, map[string]int{"flows": 5}) }); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(path)
	if err != nil || !bytes.HasPrefix(data, []byte("{\n")) {
		t.Fatalf("%q, %v", data, err)
	}
	if fi, _ := os.Stat(path); fi.Mode().Perm() != 0o644 {
		t.Errorf("mode %v", fi.Mode())
	}

	// A failing writer: the error comes back, the old file stays, and no
	// temporary file is left.
	boom := errors.New("boom")
	err = WriteAtomic(path, func(w io.Writer) error {
		io.WriteString(w, strings.Repeat("partial ", 10000))
		return boom
	})
	if !errors.Is(err, boom) {
		t.Errorf("error = %v, want boom", err)
	}
	if got, _ := os.ReadFile(path); !bytes.Equal(got, data) {
		t.Error("failed write changed the file")
	}
	if names := dirEntries(t, dir); len(names) != 1 || names[0] != "summary.json" {
		t.Errorf("left behind: %v", names)
	}

	// A new file that fails is never created; a panic cleans up too.
	fresh := filepath.Join(dir, "new.txt")
	if err := WriteAtomic(fresh, func(io.Writer) error { return boom }); err == nil {
		t.Error("no error")
	}
	func() {
		defer func() { recover() }()
		WriteAtomic(fresh, func(io.Writer) error { panic("write panicked") })
	}()
	if names := dirEntries(t, dir); len(names) != 1 {
		t.Errorf("left behind: %v", names)
	}
	// A missing directory fails cleanly.
	if err := WriteAtomic(filepath.Join(dir, "no", "such"), func(io.Writer) error { return nil }); err == nil {
		t.Error("missing directory accepted")
	}
}

// TestJSONFloats writes NaN as null and the other values as they are.
func TestJSONFloats(t *testing.T) {
	if JSONFloats(nil) != nil {
		t.Error("JSONFloats(nil) is not nil")
	}
	var b bytes.Buffer
	if err := WriteJSON(&b, JSONFloats([]float64{1.5, math.NaN(), 0})); err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(strings.Fields(b.String()), ""); got != "[1.5,null,0]" {
		t.Errorf("JSON %s, want [1.5,null,0]", got)
	}
}
