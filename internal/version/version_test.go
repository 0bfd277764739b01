package version

import (
	"runtime"
	"runtime/debug"
	"strings"
	"testing"
)

func TestLineAndClean(t *testing.T) {
	set := func(kv ...string) []debug.BuildSetting {
		var out []debug.BuildSetting
		for i := 0; i+1 < len(kv); i += 2 {
			out = append(out, debug.BuildSetting{Key: kv[i], Value: kv[i+1]})
		}
		return out
	}
	plat := runtime.Version() + " " + runtime.GOOS + "/" + runtime.GOARCH
	for _, tc := range []struct {
		name      string
		bi        *debug.BuildInfo
		ok        bool
		wantLine  string
		wantClean bool
	}{
		{"no build info", nil, false, "graphcc (devel) " + plat, false},
		{"no vcs", &debug.BuildInfo{}, true, "graphcc (devel) " + plat, false},
		{"clean", &debug.BuildInfo{Main: debug.Module{Version: "v1.2.0"}, Settings: set("vcs.revision", "abc", "vcs.modified", "false", "GOARCH", "amd64")},
			true, "graphcc v1.2.0 " + plat + " vcs.revision=abc vcs.modified=false", true},
		{"modified", &debug.BuildInfo{Main: debug.Module{Version: "v1.2.0+dirty"}, Settings: set("vcs.revision", "abc", "vcs.modified", "true")},
			true, "graphcc v1.2.0+dirty " + plat + " vcs.revision=abc vcs.modified=true", false},
		{"revision without modified", &debug.BuildInfo{Settings: set("vcs.revision", "abc")}, true, "graphcc (devel) " + plat + " vcs.revision=abc", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := line(tc.bi, tc.ok); got != tc.wantLine {
				t.Errorf("line = %q, want %q", got, tc.wantLine)
			}
			if got := clean(tc.bi, tc.ok); got != tc.wantClean {
				t.Errorf("clean = %v, want %v", got, tc.wantClean)
			}
		})
	}
}

// TestID: a test binary records no clean revision, so its ID ends in the
// executable's hash, and a second call returns the same.
func TestID(t *testing.T) {
	a, err := ID()
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(a, Line()) || !strings.Contains(a, " sha256:") || len(a) != len(Line())+len(" sha256:")+64 {
		t.Errorf("ID = %q, want %q and the executable's sha256", a, Line())
	}
	if b, _ := ID(); b != a {
		t.Errorf("second ID = %q, first %q", b, a)
	}
}
