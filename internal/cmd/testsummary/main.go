// Command testsummary reads `go test -json` on stdin and writes what a
// plain `go test` would (each package's result line, the output of every
// failed test, build errors), then every skipped test with the reason it
// gave, and a closing line "N passed, N failed, N skipped". It exits 1 if a
// test or a package failed, else 0; make test pipes go test into it under
// pipefail, so go test's own failure (one that printed no JSON) still
// fails the run.
//
//	go test -json ./... | go run ./internal/cmd/testsummary
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
)

func main() {
	s := newSummary(os.Stdout)
	if err := s.read(os.Stdin); err != nil {
		fmt.Fprintf(os.Stderr, "testsummary: %v\n", err)
		os.Exit(2)
	}
	s.report()
	if s.nFailed > 0 {
		os.Exit(1)
	}
}

// event is one line of `go test -json` (cmd/test2json's TestEvent, with
// the build events of go test -json).
type event struct {
	Action     string // start, run, pause, cont, pass, fail, skip, bench, output, build-output, build-fail
	Package    string
	Test       string
	Output     string
	ImportPath string // of build-output and build-fail
}

// skipped is a test that skipped, and why.
type skipped struct {
	pkg, test, reason string
}

// key names a test of a package.
type key struct{ pkg, test string }

// summary counts the tests of a go test -json stream and keeps what is
// still to be printed.
type summary struct {
	w                        io.Writer
	passed, nFailed, skipped int
	skips                    []skipped
	// lines holds each unfinished top-level test's output and its
	// subtests', per test, printed if it fails; tree lists the test and its
	// subtests in the order they started; fails marks those that failed.
	lines map[key][]string
	tree  map[key][]string
	fails map[key]bool
	// testFailed marks the packages that had a failed test.
	testFailed map[string]bool
}

func newSummary(w io.Writer) *summary {
	return &summary{w: w, lines: map[key][]string{}, tree: map[key][]string{},
		fails: map[key]bool{}, testFailed: map[string]bool{}}
}

// read handles every event of r; a line that is not JSON is passed
// through.
func (s *summary) read(r io.Reader) error {
	br := bufio.NewReader(r)
	for {
		line, err := br.ReadString('\n')
		if line != "" {
			var e event
			if json.Unmarshal([]byte(line), &e) != nil || e.Action == "" {
				io.WriteString(s.w, line)
			} else {
				s.event(e)
			}
		}
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
	}
}

// event handles one event.
func (s *summary) event(e event) {
	switch {
	case e.Action == "build-output":
		io.WriteString(s.w, e.Output)
	case e.Test == "":
		s.packageEvent(e)
	default:
		s.testEvent(e)
	}
}

// packageEvent handles an event of a package as a whole: its output is
// printed as go test prints it (but the PASS line of its binary), and a
// package that failed without a failed test (a build error, a panic, a
// timeout, TestMain) counts as one failure, after the output of its
// unfinished tests.
func (s *summary) packageEvent(e event) {
	switch e.Action {
	case "output":
		if e.Output != "PASS\n" {
			io.WriteString(s.w, e.Output)
		}
	case "fail":
		for top := range s.tree {
			if top.pkg == e.Package {
				s.printTree(top, true)
			}
		}
		if !s.testFailed[e.Package] {
			s.nFailed++
		}
	}
}

// testEvent handles an event of a test or subtest.
func (s *summary) testEvent(e event) {
	k := key{e.Package, e.Test}
	top := key{e.Package, strings.SplitN(e.Test, "/", 2)[0]}
	switch e.Action {
	case "run":
		s.tree[top] = append(s.tree[top], e.Test)
	case "output":
		if !framing(e.Output) {
			s.lines[k] = append(s.lines[k], e.Output)
		}
	case "pass":
		s.passed++
	case "skip":
		s.skipped++
		s.skips = append(s.skips, skipped{e.Package, e.Test, reason(s.lines[k])})
	case "fail":
		s.nFailed++
		s.fails[k] = true
		s.testFailed[e.Package] = true
	}
	if k == top && (e.Action == "pass" || e.Action == "skip" || e.Action == "fail") {
		s.printTree(top, false)
	}
}

// printTree prints the output of top's failed tests (all of them if all),
// each result line first and a subtest's indented under its parent as go
// test does, and forgets the tree.
func (s *summary) printTree(top key, all bool) {
	for _, name := range s.tree[top] {
		k := key{top.pkg, name}
		if all || s.fails[k] {
			indent := strings.Repeat("    ", strings.Count(name, "/"))
			lines := s.lines[k]
			if i := slices.IndexFunc(lines, func(l string) bool { return strings.HasPrefix(l, "--- ") }); i > 0 {
				lines = slices.Concat(lines[i:i+1], lines[:i], lines[i+1:])
			}
			for _, l := range lines {
				io.WriteString(s.w, indent+l)
			}
		}
		delete(s.lines, k)
		delete(s.fails, k)
	}
	delete(s.tree, top)
}

// framing reports whether a line of test output is test2json's framing
// (=== RUN and the like), which a plain go test does not print.
func framing(line string) bool {
	for _, p := range []string{"=== RUN", "=== PAUSE", "=== CONT", "=== NAME"} {
		if strings.HasPrefix(line, p) {
			return true
		}
	}
	return false
}

// reason is a skipped test's message: its output but the --- SKIP line,
// one line, each line trimmed.
func reason(lines []string) string {
	var parts []string
	for _, l := range lines {
		l = strings.TrimSpace(l)
		if l != "" && !strings.HasPrefix(l, "--- SKIP") {
			parts = append(parts, l)
		}
	}
	if len(parts) == 0 {
		return "(no message)"
	}
	return strings.Join(parts, "; ")
}

// report writes the skipped tests and the closing line.
func (s *summary) report() {
	if len(s.skips) > 0 {
		fmt.Fprintf(s.w, "\nskipped:\n")
		for _, sk := range s.skips {
			fmt.Fprintf(s.w, "  %s %s: %s\n", sk.pkg, sk.test, sk.reason)
		}
	}
	fmt.Fprintf(s.w, "\n%d passed, %d failed, %d skipped\n", s.passed, s.nFailed, s.skipped)
}
