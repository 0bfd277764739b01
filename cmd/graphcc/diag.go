package main

import (
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"syscall"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// How graphcc speaks on stderr: every line it writes there, an error, a
// warning or a log record, starts with "graphcc: ".

// exitStatus writes err to w as graphcc writes its errors and returns the
// exit status: 0 without an error, 1 for an error, and 128+sig (130 for
// SIGINT, 143 for SIGTERM) for a command that ended with an error after
// signal sig (0: none) was received. The command's cleanup has run by
// then; an interrupted command prints "graphcc: interrupted" (or
// "terminated"), and its error only if it says more than that: one that
// does not end with cause, the context's cause (a hint to resume, a
// cleanup that failed).
func exitStatus(w io.Writer, err error, sig syscall.Signal, cause error) int {
	switch {
	case err == nil:
		return 0
	case sig == 0:
		fmt.Fprintf(w, "graphcc: %v\n", err)
		return 1
	}
	word := "interrupted"
	if sig != syscall.SIGINT {
		word = "terminated"
	}
	fmt.Fprintf(w, "graphcc: %s\n", word)
	if cause == nil || !strings.HasSuffix(err.Error(), cause.Error()) {
		fmt.Fprintf(w, "graphcc: %v\n", err)
	}
	return 128 + int(sig)
}

// flagError rewords a number or boolean flag whose value does not parse so
// that it names the flag and the value rather than strconv's function:
// `--load: "0.6x" is not a number`. Other flag errors (an unknown flag, a
// missing value, a value of a type of graphcc's own) keep pflag's words,
// which name the flag already.
func flagError(_ *cobra.Command, err error) error {
	var ive *pflag.InvalidValueError
	if !errors.As(err, &ive) {
		return err
	}
	var ne *strconv.NumError
	if !errors.As(err, &ne) {
		return err // a value of graphcc's own type, whose error says what is wrong
	}
	name, value := "--"+ive.GetFlag().Name, ive.GetValue()
	what := "a number"
	switch t := ive.GetFlag().Value.Type(); {
	case t == "bool":
		what = "true or false"
	case strings.HasPrefix(t, "uint"):
		what = "a whole number, 0 or more"
	case strings.HasPrefix(t, "int"):
		what = "a whole number"
	}
	if errors.Is(ne.Err, strconv.ErrRange) {
		return fmt.Errorf("%s: %q is out of range", name, value)
	}
	return fmt.Errorf("%s: %q is not %s", name, value, what)
}
