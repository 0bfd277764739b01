package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strconv"
	"strings"
	"sync"
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

// lineHandler is a slog.Handler that writes each record on one line in the
// form of graphcc's errors, "graphcc: warning: message key=value ...": the
// level as a word (debug, info, warning, error), the message, then the
// attributes as slog.TextHandler writes them (quoted where they need it,
// groups as prefixes).
type lineHandler struct {
	out *lineOut
	// text formats the attributes (with those of WithAttrs and WithGroup)
	// into out.buf, without time, level and message.
	text slog.Handler
}

// lineOut is what a lineHandler and those derived from it share.
type lineOut struct {
	mu  sync.Mutex
	w   io.Writer
	buf bytes.Buffer
}

// newLineHandler returns a lineHandler writing records of level lvl and
// above to w.
func newLineHandler(w io.Writer, lvl slog.Leveler) *lineHandler {
	out := &lineOut{w: w}
	text := slog.NewTextHandler(&out.buf, &slog.HandlerOptions{
		Level: lvl,
		ReplaceAttr: func(groups []string, a slog.Attr) slog.Attr {
			if len(groups) == 0 && (a.Key == slog.TimeKey || a.Key == slog.LevelKey || a.Key == slog.MessageKey) {
				return slog.Attr{}
			}
			return a
		},
	})
	return &lineHandler{out: out, text: text}
}

func (h *lineHandler) Enabled(ctx context.Context, l slog.Level) bool {
	return h.text.Enabled(ctx, l)
}

func (h *lineHandler) Handle(ctx context.Context, r slog.Record) error {
	o := h.out
	o.mu.Lock()
	defer o.mu.Unlock()
	o.buf.Reset()
	if err := h.text.Handle(ctx, r); err != nil {
		return err
	}
	fields := bytes.TrimSpace(o.buf.Bytes())
	line := "graphcc: " + levelWord(r.Level) + ": " + r.Message
	if len(fields) > 0 {
		line += " (" + string(fields) + ")"
	}
	_, err := io.WriteString(o.w, line+"\n")
	return err
}

func (h *lineHandler) WithAttrs(as []slog.Attr) slog.Handler {
	return &lineHandler{out: h.out, text: h.text.WithAttrs(as)}
}

func (h *lineHandler) WithGroup(name string) slog.Handler {
	return &lineHandler{out: h.out, text: h.text.WithGroup(name)}
}

// levelWord names the level that l is at or above.
func levelWord(l slog.Level) string {
	switch {
	case l >= slog.LevelError:
		return "error"
	case l >= slog.LevelWarn:
		return "warning"
	case l >= slog.LevelInfo:
		return "info"
	}
	return "debug"
}
