package main

import (
	"encoding/json"
	"os"
	"strings"
	"testing"
)

// ev is one line of go test -json.
func ev(action, pkg, test, output string) string {
	b, err := json.Marshal(event{Action: action, Package: pkg, Test: test, Output: output})
	if err != nil {
		panic(err)
	}
	return string(b) + "\n"
}

func TestSummary(t *testing.T) {
	canned, err := os.ReadFile("testdata/canned.json") // go test -json of a module made for it
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name    string
		in      string
		want    string
		failure bool
	}{
		{
			name: "all pass",
			in: ev("start", "p", "", "") + ev("run", "p", "TestA", "") + ev("output", "p", "TestA", "=== RUN   TestA\n") +
				ev("output", "p", "TestA", "--- PASS: TestA (0.00s)\n") + ev("pass", "p", "TestA", "") +
				ev("output", "p", "", "PASS\n") + ev("output", "p", "", "ok  \tp\t0.1s\n") + ev("pass", "p", "", ""),
			want: "ok  \tp\t0.1s\n\n1 passed, 0 failed, 0 skipped\n",
		},
		{
			name: "skips, with and without a message; a package without tests is no skip",
			in: ev("run", "p", "TestRoot", "") + ev("output", "p", "TestRoot", "=== RUN   TestRoot\n") +
				ev("output", "p", "TestRoot", "    x_test.go:9: needs root\n") +
				ev("output", "p", "TestRoot", "--- SKIP: TestRoot (0.00s)\n") + ev("skip", "p", "TestRoot", "") +
				ev("run", "p", "FuzzX/seed#0", "") + ev("output", "p", "FuzzX/seed#0", "    --- SKIP: FuzzX/seed#0 (0.00s)\n") +
				ev("skip", "p", "FuzzX/seed#0", "") +
				ev("output", "q", "", "?   \tq\t[no test files]\n") + ev("skip", "q", "", ""),
			want: "?   \tq\t[no test files]\n\nskipped:\n  p TestRoot: x_test.go:9: needs root\n  p FuzzX/seed#0: (no message)\n\n0 passed, 0 failed, 2 skipped\n",
		},
		{
			name: "a package that fails without a failed test shows its unfinished tests",
			in: ev("run", "p", "TestHang", "") + ev("output", "p", "TestHang", "=== RUN   TestHang\n") +
				ev("output", "p", "TestHang", "    x_test.go:3: waiting\n") +
				ev("output", "p", "", "panic: test timed out after 1s\n") + ev("output", "p", "", "FAIL\tp\t1.0s\n") + ev("fail", "p", "", ""),
			want:    "panic: test timed out after 1s\nFAIL\tp\t1.0s\n    x_test.go:3: waiting\n\n0 passed, 1 failed, 0 skipped\n",
			failure: true,
		},
		{
			name:    "lines that are not JSON pass through",
			in:      "go: downloading example.com/x v1.0.0\n" + ev("output", "p", "", "ok  \tp\t0.1s\n") + "no newline at the end",
			want:    "go: downloading example.com/x v1.0.0\nok  \tp\t0.1s\nno newline at the end\n0 passed, 0 failed, 0 skipped\n",
			failure: false,
		},
		{
			name: "a go test run: failed test and subtest as go test prints them, build error, skips",
			in:   string(canned),
			want: `--- FAIL: TestFail (0.00s)
    a_test.go:10: got 1
    --- FAIL: TestFail/sub_bad (0.00s)
        a_test.go:12: want 2
FAIL
FAIL	example.com/canned/a	0.008s
# example.com/canned/c [example.com/canned/c.test]
c/c_test.go:5:33: undefined: undefined
ok  	example.com/canned/b	0.008s
FAIL	example.com/canned/c [build failed]
?   	example.com/canned/d	[no test files]

skipped:
  example.com/canned/a TestSkip: a_test.go:7: needs root
  example.com/canned/a TestFail/sub_skip: a_test.go:13: needs BMv2

4 passed, 3 failed, 2 skipped
`,
			failure: true,
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var out strings.Builder
			s := newSummary(&out)
			if err := s.read(strings.NewReader(tc.in)); err != nil {
				t.Fatal(err)
			}
			s.report()
			if out.String() != tc.want {
				t.Errorf("printed\n%s\nwant\n%s", out.String(), tc.want)
			}
			if got := s.nFailed > 0; got != tc.failure {
				t.Errorf("failure %v, want %v", got, tc.failure)
			}
		})
	}
}
