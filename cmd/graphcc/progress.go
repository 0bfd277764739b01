package main

import (
	"fmt"
	"io"
	"strings"
)

// outputs collects the files a command wrote, to name them when it ends.
type outputs struct{ paths []string }

// write writes path through write as writeOutput does and records it;
// without a path ("") it writes and records nothing.
func (o *outputs) write(flag, path string, write func(w io.Writer) error) error {
	if err := writeOutput(flag, path, write); err != nil || path == "" {
		return err
	}
	o.add(path)
	return nil
}

// add records path as written.
func (o *outputs) add(path string) { o.paths = append(o.paths, path) }

// report names the files written on w, in one line: "graphcc: wrote a, b".
func (o *outputs) report(w io.Writer) {
	if len(o.paths) > 0 {
		fmt.Fprintf(w, "graphcc: wrote %s\n", strings.Join(o.paths, ", "))
	}
}
