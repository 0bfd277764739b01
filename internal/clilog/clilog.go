// Package clilog is graphcc's log/slog handler for its command line: every
// record is one line on stderr in the form of graphcc's errors,
// "graphcc: warning: message (key=value ...)" (New).
package clilog

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"sync"
)

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

// New returns a logger writing records of level lvl and above to w, one
// line each, in the form of graphcc's errors.
func New(w io.Writer, lvl slog.Leveler) *slog.Logger {
	return slog.New(newLineHandler(w, lvl))
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
