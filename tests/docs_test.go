package tests

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"unicode"
)

// pendingDocs are files the documentation links to before they exist:
// another change of issue 22 writes them. A link to one is accepted only
// while the file is missing; once it exists, the link and its anchor are
// checked like any other. Remove an entry when its file lands.
var pendingDocs = map[string]string{}

var (
	fencedCode = regexp.MustCompile("(?ms)^[ \t]*```.*?^[ \t]*```[^\n]*$")
	inlineCode = regexp.MustCompile("`[^`]*`")
	linkTarget = regexp.MustCompile(`\]\(([^)\s]+)(?:\s+"[^"]*")?\)`)
	atxHeading = regexp.MustCompile(`(?m)^#{1,6}[ \t]+(.+?)[ \t#]*$`)
	urlScheme  = regexp.MustCompile(`^[a-zA-Z][a-zA-Z0-9+.-]*:`)
)

// stripCode removes fenced code blocks and inline code spans, whose
// brackets are not links.
func stripCode(text string) string {
	return inlineCode.ReplaceAllString(fencedCode.ReplaceAllString(text, ""), "")
}

// markdownLinks returns the targets of the Markdown links and images in
// text, outside code.
func markdownLinks(text string) []string {
	var out []string
	for _, m := range linkTarget.FindAllStringSubmatch(stripCode(text), -1) {
		out = append(out, m[1])
	}
	return out
}

// headingSlug is the anchor GitHub gives a heading: lower case, every
// character but letters, digits, spaces, hyphens and underscores dropped,
// spaces turned into hyphens.
func headingSlug(heading string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(heading) {
		switch {
		case r == ' ':
			b.WriteByte('-')
		case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r):
			b.WriteRune(r)
		}
	}
	return b.String()
}

// headingAnchors returns the anchors of text's headings, a repeated one
// numbered -1, -2, … as GitHub numbers them.
func headingAnchors(text string) map[string]bool {
	anchors := map[string]bool{}
	seen := map[string]int{}
	for _, m := range atxHeading.FindAllStringSubmatch(fencedCode.ReplaceAllString(text, ""), -1) {
		slug := headingSlug(m[1])
		if n := seen[slug]; n > 0 {
			anchors[fmt.Sprintf("%s-%d", slug, n)] = true
		} else {
			anchors[slug] = true
		}
		seen[slug]++
	}
	return anchors
}

// brokenLinks returns a description of every relative link of the
// Markdown file rel (a slash path under root) that does not resolve: a
// file or directory that does not exist, or an anchor no heading of the
// linked Markdown file has. pending lists files that may be missing.
func brokenLinks(root, rel string, pending map[string]string) ([]string, error) {
	data, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(rel)))
	if err != nil {
		return nil, err
	}
	var broken []string
	for _, target := range markdownLinks(string(data)) {
		if urlScheme.MatchString(target) {
			continue // http:, https:, mailto:
		}
		file, anchor, _ := strings.Cut(target, "#")
		linked := rel
		if file != "" {
			if strings.HasPrefix(file, "/") {
				broken = append(broken, fmt.Sprintf("%s: %s: absolute path", rel, target))
				continue
			}
			linked = filepath.ToSlash(filepath.Clean(filepath.Join(filepath.Dir(rel), file)))
		}
		if strings.HasPrefix(linked, "../") {
			broken = append(broken, fmt.Sprintf("%s: %s: outside the repository", rel, target))
			continue
		}
		info, err := os.Stat(filepath.Join(root, filepath.FromSlash(linked)))
		if err != nil {
			if _, ok := pending[linked]; ok {
				continue
			}
			broken = append(broken, fmt.Sprintf("%s: %s: %s does not exist", rel, target, linked))
			continue
		}
		if anchor == "" || info.IsDir() || !strings.HasSuffix(linked, ".md") {
			continue
		}
		text, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(linked)))
		if err != nil {
			return nil, err
		}
		if !headingAnchors(string(text))[anchor] {
			broken = append(broken, fmt.Sprintf("%s: %s: %s has no heading #%s", rel, target, linked, anchor))
		}
	}
	return broken, nil
}

func TestBrokenLinks(t *testing.T) {
	files := map[string]string{
		"README.md":        "# Top\n\n## Main results\n\nSee [docs](docs/a.md).\n",
		"docs/a.md":        "# A page\n\n## Scenario files\n\n## Fidelity to HPCC's ns-3 simulator\n\n## Repeat\n\n## Repeat\n",
		"docs/img/x.png":   "png",
		"docs/sub/b.md":    "# B\n",
		"LICENSE":          "MIT",
		"docs/design-x.md": "# X\n",
	}
	root := t.TempDir()
	for name, text := range files {
		path := filepath.Join(root, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cases := []struct {
		name, from, text string
		broken           int
	}{
		{"file", "docs/c.md", "[a](a.md)", 0},
		{"anchor", "docs/c.md", "[a](a.md#scenario-files)", 0},
		{"anchor with punctuation", "docs/c.md", "[a](a.md#fidelity-to-hpccs-ns-3-simulator)", 0},
		{"repeated heading", "docs/c.md", "[a](a.md#repeat) [b](a.md#repeat-1)", 0},
		{"image", "README.md", "![fig](docs/img/x.png)", 0},
		{"parent directory", "docs/sub/c.md", "[l](../../LICENSE) [a](../a.md#a-page)", 0},
		{"same-file anchor", "docs/c.md", "# Here\n\n[h](#here)", 0},
		{"link text over two lines", "docs/c.md", "[a\npage](a.md)", 0},
		{"web links", "docs/c.md", "[p](https://arxiv.org/abs/2308.04905) [m](mailto:x@example.com)", 0},
		{"in code", "docs/c.md", "`[x](nowhere.md)`\n\n```\n[y](nowhere.md)\n```\n", 0},
		{"pending file", "README.md", "[d](docs/design.md)", 0},
		{"missing file", "docs/c.md", "[x](nowhere.md)", 1},
		{"missing image", "README.md", "![x](docs/img/y.png)", 1},
		{"missing anchor", "docs/c.md", "[a](a.md#scenario-file)", 1},
		{"missing same-file anchor", "docs/c.md", "# Here\n\n[h](#there)", 1},
		{"third repeat", "docs/c.md", "[a](a.md#repeat-2)", 1},
		{"outside the repository", "README.md", "[x](../elsewhere.md)", 1},
		{"absolute path", "README.md", "[x](/README.md)", 1},
		{"pending file that exists, wrong anchor", "README.md", "[d](docs/design-x.md#nope)", 1},
		{"several", "docs/c.md", "[x](a.md#no) [y](b.md) [z](a.md)", 2},
	}
	pending := map[string]string{"docs/design.md": "test", "docs/design-x.md": "test"}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			path := filepath.Join(root, filepath.FromSlash(c.from))
			saved, had := files[c.from]
			if err := os.WriteFile(path, []byte(c.text), 0o644); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() {
				if had {
					os.WriteFile(path, []byte(saved), 0o644)
				} else {
					os.Remove(path)
				}
			})
			broken, err := brokenLinks(root, c.from, pending)
			if err != nil {
				t.Fatal(err)
			}
			if len(broken) != c.broken {
				t.Errorf("%d broken links, want %d: %q", len(broken), c.broken, broken)
			}
		})
	}
}

// TestDocsLinks checks that every relative link of every Markdown file in
// the repository (README.md, docs/ and any other) resolves.
func TestDocsLinks(t *testing.T) {
	root := ".."
	var pages []string
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == ".git" || d.Name() == "testdata" || d.Name() == "node_modules") {
			return filepath.SkipDir
		}
		if !d.IsDir() && strings.HasSuffix(d.Name(), ".md") {
			rel, err := filepath.Rel(root, path)
			if err != nil {
				return err
			}
			pages = append(pages, filepath.ToSlash(rel))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"README.md", "docs/README.md"} {
		if !slices.Contains(pages, want) {
			t.Errorf("%s is missing", want)
		}
	}
	for _, page := range pages {
		broken, err := brokenLinks(root, page, pendingDocs)
		if err != nil {
			t.Fatal(err)
		}
		for _, b := range broken {
			t.Error(b)
		}
	}
	for file, why := range pendingDocs {
		if _, err := os.Stat(filepath.Join(root, filepath.FromSlash(file))); err != nil {
			t.Logf("links to %s accepted while it is missing: %s", file, why)
		}
	}
}
