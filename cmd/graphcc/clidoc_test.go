package main

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/spf13/cobra"
	"github.com/spf13/cobra/doc"
)

// updateCLIDocs makes TestCLIReference write docs/cli/ instead of
// checking it (go generate ./cmd/graphcc).
var updateCLIDocs = flag.Bool("update-cli-docs", false, "write docs/cli/ from the command tree")

// cliDocsDir is the generated CLI reference, one page per command.
const cliDocsDir = "../../docs/cli"

// TestCLIReference: docs/cli/ is the reference cobra/doc generates from
// the command tree (every command's help, flags and examples), so that the
// help and the docs cannot drift; after changing a command, run
// go generate ./cmd/graphcc.
func TestCLIReference(t *testing.T) {
	tmp := t.TempDir()
	root := newRoot(tinyLookup)
	var disable func(*cobra.Command)
	disable = func(c *cobra.Command) {
		c.DisableAutoGenTag = true // no date line: the pages are stable
		for _, s := range c.Commands() {
			disable(s)
		}
	}
	disable(root)
	if err := doc.GenMarkdownTree(root, tmp); err != nil {
		t.Fatal(err)
	}
	if *updateCLIDocs {
		if err := os.RemoveAll(cliDocsDir); err != nil {
			t.Fatal(err)
		}
		if err := os.CopyFS(cliDocsDir, os.DirFS(tmp)); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, _ := filepath.Glob(filepath.Join(tmp, "*.md"))
	have, _ := filepath.Glob(filepath.Join(cliDocsDir, "*.md"))
	base := func(ps []string) []string {
		var out []string
		for _, p := range ps {
			out = append(out, filepath.Base(p))
		}
		return out
	}
	if !slices.Equal(base(want), base(have)) {
		t.Fatalf("docs/cli/ holds %v, the commands make %v: run go generate ./cmd/graphcc", base(have), base(want))
	}
	for _, p := range want {
		w, _ := os.ReadFile(p)
		h, err := os.ReadFile(filepath.Join(cliDocsDir, filepath.Base(p)))
		if err != nil || !bytes.Equal(w, h) {
			t.Errorf("docs/cli/%s is stale: run go generate ./cmd/graphcc", filepath.Base(p))
		}
	}
}
