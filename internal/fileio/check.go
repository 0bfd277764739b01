package fileio

import (
	"fmt"
	"os"
	"path/filepath"
)

// CheckOutputs fails early, naming the output, when a file of outs could
// not be created: its directory must exist and the path must not be a
// directory. A command that writes its outputs only after a long run
// succeeds calls it first, so that the run does not end in a late error.
// outs alternates names (a flag, "--fct-out") and paths; an empty path is
// skipped. ins, of the same form, are the files the run reads: no output
// may be one of them, nor another output (CheckDistinct).
func CheckOutputs(ins []string, outs ...string) error {
	for i := 0; i+1 < len(outs); i += 2 {
		name, path := outs[i], outs[i+1]
		if path == "" {
			continue
		}
		dir := filepath.Dir(path)
		st, err := os.Stat(dir)
		if err != nil {
			return fmt.Errorf("%s %s: %w", name, path, err)
		}
		if !st.IsDir() {
			return fmt.Errorf("%s %s: %s is not a directory", name, path, dir)
		}
		if st, err := os.Stat(path); err == nil && st.IsDir() {
			return fmt.Errorf("%s %s: is a directory", name, path)
		}
	}
	return CheckDistinct(outs, ins)
}

// CheckDistinct refuses two outputs, or an output and an input, that are
// one file, so that no output overwrites another or what the run reads.
// outs and ins are name/path pairs, as CheckOutputs takes them; empty
// paths are skipped. Paths are compared cleaned and absolute, and as files
// when both exist (links, hard links).
func CheckDistinct(outs, ins []string) error {
	for i := 0; i+1 < len(outs); i += 2 {
		if outs[i+1] == "" {
			continue
		}
		for j := i + 2; j+1 < len(outs); j += 2 {
			if outs[j+1] != "" && sameFile(outs[i+1], outs[j+1]) {
				return fmt.Errorf("%s %s and %s %s: two outputs in one file", outs[i], outs[i+1], outs[j], outs[j+1])
			}
		}
		for j := 0; j+1 < len(ins); j += 2 {
			if ins[j+1] != "" && sameFile(outs[i+1], ins[j+1]) {
				return fmt.Errorf("%s %s: it is the input %s %s, which the run would overwrite", outs[i], outs[i+1], ins[j], ins[j+1])
			}
		}
	}
	return nil
}

// sameFile reports whether paths a and b name one file: the same cleaned
// absolute path, or, when both exist, the same file.
func sameFile(a, b string) bool {
	aa, err1 := filepath.Abs(a)
	bb, err2 := filepath.Abs(b)
	if err1 == nil && err2 == nil && aa == bb {
		return true
	}
	sa, err1 := os.Stat(a)
	sb, err2 := os.Stat(b)
	return err1 == nil && err2 == nil && os.SameFile(sa, sb)
}

// CheckOutputDir fails early, naming it name (a flag, "--out"), when dir
// could not be a directory of outputs: it must be a directory, or be
// missing in a directory that exists, which the command creates.
func CheckOutputDir(name, dir string) error {
	if dir == "" {
		return fmt.Errorf("%s: empty directory name", name)
	}
	if st, err := os.Stat(dir); err == nil {
		if !st.IsDir() {
			return fmt.Errorf("%s %s: not a directory", name, dir)
		}
		return nil
	}
	parent := filepath.Dir(filepath.Clean(dir))
	st, err := os.Stat(parent)
	if err != nil {
		return fmt.Errorf("%s %s: %w", name, dir, err)
	}
	if !st.IsDir() {
		return fmt.Errorf("%s %s: %s is not a directory", name, dir, parent)
	}
	return nil
}
