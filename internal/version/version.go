package version

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"runtime"
	"runtime/debug"
	"strings"
	"sync"
)

// Line returns what `graphcc version` prints: "graphcc MODULE_VERSION
// GO_VERSION OS/ARCH", then the VCS revision and whether the tree was
// modified when the build stamped them ("vcs.revision=… vcs.modified=…").
// MODULE_VERSION is "(devel)" when the build records none.
func Line() string {
	return line(debug.ReadBuildInfo())
}

func line(bi *debug.BuildInfo, ok bool) string {
	version := "(devel)"
	var rev []string
	if ok {
		if bi.Main.Version != "" {
			version = bi.Main.Version
		}
		for _, s := range bi.Settings {
			if s.Key == "vcs.revision" || s.Key == "vcs.modified" {
				rev = append(rev, s.Key+"="+s.Value)
			}
		}
	}
	l := fmt.Sprintf("graphcc %s %s %s/%s", version, runtime.Version(), runtime.GOOS, runtime.GOARCH)
	if len(rev) > 0 {
		l += " " + strings.Join(rev, " ")
	}
	return l
}

// clean reports whether the build records a VCS revision of an
// unmodified tree: then Line names the code exactly.
func clean(bi *debug.BuildInfo, ok bool) bool {
	if !ok {
		return false
	}
	var rev, modified string
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			modified = s.Value
		}
	}
	return rev != "" && modified == "false"
}

var id struct {
	once sync.Once
	s    string
	err  error
}

// ID returns the identity of the running build that part files record:
// Line, and unless the build records the VCS revision of an unmodified
// tree, the SHA-256 of the executable too ("… sha256:HEX"), since then the
// line alone does not tell two builds apart (`go run` and `go build` of a
// modified tree stamp no revision, or "vcs.modified=true"). Builds of one
// clean revision with one Go version for one OS/ARCH have equal IDs;
// anything else differs. It is computed once per process.
func ID() (string, error) {
	id.once.Do(func() {
		bi, ok := debug.ReadBuildInfo()
		id.s = line(bi, ok)
		if clean(bi, ok) {
			return
		}
		sum, err := executableSum()
		if err != nil {
			id.err = fmt.Errorf("graphcc's build identity: %w", err)
			return
		}
		id.s += " sha256:" + sum
	})
	return id.s, id.err
}

// executableSum is the hex SHA-256 of the running executable.
func executableSum() (string, error) {
	exe, err := os.Executable()
	if err != nil {
		return "", err
	}
	f, err := os.Open(exe)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", fmt.Errorf("%s: %w", exe, err)
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}
