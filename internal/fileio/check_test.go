package fileio

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestCheckOutputs(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "in.txt")
	if err := os.WriteFile(file, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link.txt")
	if err := os.Symlink(file, link); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		ins, outs []string
		err       string // "" for none
	}{
		{nil, []string{"--a", filepath.Join(dir, "a.json"), "--b", ""}, ""},
		{nil, nil, ""},
		{nil, []string{"--a", filepath.Join(dir, "missing", "a.json")}, "--a " + filepath.Join(dir, "missing", "a.json") + ": stat"},
		{nil, []string{"--a", filepath.Join(file, "a.json")}, file + " is not a directory"},
		{nil, []string{"--a", dir}, "--a " + dir + ": is a directory"},
		{nil, []string{"--a", filepath.Join(dir, "x"), "--b", filepath.Join(dir, ".", "x")}, "--a " + filepath.Join(dir, "x") + " and --b " + filepath.Join(dir, ".", "x") + ": two outputs in one file"},
		{nil, []string{"--a", file, "--b", link}, "two outputs in one file"},
		{[]string{"--flows", link}, []string{"--a", file}, "--a " + file + ": it is the input --flows " + link + ", which the run would overwrite"},
		{[]string{"--flows", ""}, []string{"--a", file}, ""},
	} {
		err := CheckOutputs(tc.ins, tc.outs...)
		if tc.err == "" && err != nil || tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)) {
			t.Errorf("CheckOutputs(%q, %q) = %v, want %q", tc.ins, tc.outs, err, tc.err)
		}
	}
}

func TestCheckOutputDir(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "f")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ dir, err string }{
		{dir, ""},
		{filepath.Join(dir, "new"), ""},
		{"", "--out: empty directory name"},
		{file, "--out " + file + ": not a directory"},
		{filepath.Join(dir, "a", "b"), "--out " + filepath.Join(dir, "a", "b") + ": stat"},
		{filepath.Join(file, "b"), file + " is not a directory"},
	} {
		err := CheckOutputDir("--out", tc.dir)
		if tc.err == "" && err != nil || tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)) {
			t.Errorf("CheckOutputDir(%q) = %v, want %q", tc.dir, err, tc.err)
		}
	}
}
