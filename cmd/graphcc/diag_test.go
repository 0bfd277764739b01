package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"syscall"
	"testing"
)

func TestExitStatus(t *testing.T) {
	cause := errors.New("interrupt signal received")
	for _, tc := range []struct {
		name string
		err  error
		sig  syscall.Signal
		want int
		out  string
	}{
		{"success", nil, 0, 0, ""},
		{"success after a signal", nil, syscall.SIGINT, 0, ""},
		{"error", errors.New("--load 2: not in (0, 1]"), 0, 1, "graphcc: --load 2: not in (0, 1]\n"},
		{"interrupted", fmt.Errorf("interrupted at 3.000 ms simulated: %w", cause), syscall.SIGINT, 130,
			"graphcc: interrupted\n"},
		{"interrupted with a hint", fmt.Errorf("%w; the state after 3 episodes is in ck", cause), syscall.SIGINT, 130,
			"graphcc: interrupted\ngraphcc: interrupt signal received; the state after 3 episodes is in ck\n"},
		{"terminated", fmt.Errorf("run: %w", cause), syscall.SIGTERM, 143, "graphcc: terminated\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var w bytes.Buffer
			if got := exitStatus(&w, tc.err, tc.sig, cause); got != tc.want || w.String() != tc.out {
				t.Errorf("exit status %d, printed %q; want %d, %q", got, w.String(), tc.want, tc.out)
			}
		})
	}
}

// TestWarningForm: a command's warning on stderr reads as its errors do.
func TestWarningForm(t *testing.T) {
	flows := filepath.Join(t.TempDir(), "flow.txt")
	run(t, args(append([]string{"gen"}, tiny...), "--flows-out", flows)...)
	_, stderr, err := execute(t, context.Background(),
		"sim", "--flows", flows, "--leaves", "2", "--spines", "1", "--hosts-per-leaf", "2", "--load", "0.5")
	if err != nil {
		t.Fatal(err)
	}
	if want := "graphcc: warning: flag ignored with --flows (flag=--load)\n"; stderr != want {
		t.Errorf("stderr %q, want %q", stderr, want)
	}
}
