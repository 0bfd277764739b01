package privtest

import (
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
)

// RequireEnv is the environment variable that turns skips into failures.
const RequireEnv = "GRAPHCC_REQUIRE_PRIV"

// Root skips tb unless it runs as root.
func Root(tb testing.TB) {
	tb.Helper()
	if os.Geteuid() != 0 {
		missing(tb, "root (to create network namespaces)")
	}
}

// Program returns the path of the program name on PATH, or skips tb naming
// it and where it comes from (for example "p4lang/p4c").
func Program(tb testing.TB, name, from string) string {
	tb.Helper()
	path, err := exec.LookPath(name)
	if err != nil {
		missing(tb, name+" on PATH ("+from+")")
	}
	return path
}

// Runs returns the path of the program name on PATH, or skips tb naming it
// (as Program does) or, when running it with args fails, naming the
// program and the last line of what it printed: a BMv2 CLI whose Python
// lacks its thrift module is there but cannot run.
func Runs(tb testing.TB, name, from string, args ...string) string {
	tb.Helper()
	path := Program(tb, name, from)
	out, err := exec.Command(path, args...).CombinedOutput()
	if err != nil {
		last := strings.TrimSpace(string(out))
		if i := strings.LastIndexByte(last, '\n'); i >= 0 {
			last = last[i+1:]
		}
		missing(tb, fmt.Sprintf("a %s that runs (%s %s: %v: %s)", name, name, strings.Join(args, " "), err, last))
	}
	return path
}

// All skips tb, naming everything missing at once, unless it runs as root
// (if root is set) with every program on PATH.
func All(tb testing.TB, root bool, programs ...string) {
	tb.Helper()
	var miss []string
	if root && os.Geteuid() != 0 {
		miss = append(miss, "root")
	}
	for _, p := range programs {
		if _, err := exec.LookPath(p); err != nil {
			miss = append(miss, p)
		}
	}
	if len(miss) > 0 {
		missing(tb, strings.Join(miss, ", "))
	}
}

func missing(tb testing.TB, what string) {
	tb.Helper()
	if os.Getenv(RequireEnv) == "1" {
		tb.Fatalf("needs %s (%s=1)", what, RequireEnv)
	}
	tb.Skipf("needs %s", what)
}
