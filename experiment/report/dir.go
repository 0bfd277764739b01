package report

import (
	"errors"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"graphcc/experiment"
	"graphcc/internal/fileio"
)

// WriteDir writes the report rep (report.md) and its figures into the
// directory out, creating it, removes the figures an earlier WriteDir left
// there of scenarios not evaluated again, and returns the names of the
// files it wrote in out. The manifest (ManifestFile) lists every file it
// wrote there at every moment, so that a failure leaves none unlisted.
func WriteDir(out string, rep *experiment.Report, log *slog.Logger) ([]string, error) {
	if err := os.MkdirAll(out, 0o755); err != nil {
		return nil, err
	}
	before := readManifest(out)
	written := []string{"report.md"}
	for i := range rep.Scenarios {
		written = append(written, FigureFile(rep, i))
	}
	// First the old list and the new names together.
	planned := slices.Clone(before)
	for _, n := range written {
		if !slices.Contains(planned, n) {
			planned = append(planned, n)
		}
	}
	if err := writeManifest(out, planned); err != nil {
		return nil, err
	}
	if _, err := WriteFigures(out, rep); err != nil {
		return nil, err
	}
	if err := fileio.WriteAtomic(filepath.Join(out, "report.md"), func(w io.Writer) error { return WriteMarkdown(w, rep) }); err != nil {
		return nil, err
	}
	// Then the stale files go, and the list keeps any that would not.
	kept := slices.Clone(written)
	var rmErr error
	for _, name := range before {
		if slices.Contains(written, name) {
			continue
		}
		if err := os.Remove(filepath.Join(out, name)); err == nil {
			log.Info("removed a figure of an earlier eval", "file", filepath.Join(out, name))
		} else if !errors.Is(err, fs.ErrNotExist) {
			kept, rmErr = append(kept, name), err
		}
	}
	if err := writeManifest(out, kept); err != nil {
		return nil, err
	}
	return written, rmErr
}

// ManifestFile is the file in a report's directory that lists what
// WriteDir wrote there, so that the next WriteDir into that directory
// removes the figures of scenarios it does not evaluate again, rather than
// leave them beside a report that does not describe them.
const ManifestFile = ".graphcc-eval"

// readManifest returns the files the last WriteDir into dir wrote: plain
// names only (a line that is anything else is not one of eval's), none if
// there is no manifest.
func readManifest(dir string) []string {
	b, err := os.ReadFile(filepath.Join(dir, ManifestFile))
	if err != nil {
		return nil
	}
	var names []string
	for _, line := range strings.Split(string(b), "\n") {
		if line != "" && line != "." && line != ".." && line != ManifestFile && filepath.Base(line) == line &&
			(strings.HasSuffix(line, ".png") || line == "report.md") {
			names = append(names, line)
		}
	}
	return names
}

// writeManifest records names as what WriteDir wrote into dir.
func writeManifest(dir string, names []string) error {
	return fileio.WriteAtomic(filepath.Join(dir, ManifestFile), func(w io.Writer) error {
		_, err := io.WriteString(w, strings.Join(names, "\n")+"\n")
		return err
	})
}
