// Package report renders the evaluation harness's result, an
// experiment.Report, as graphcc eval and graphcc merge write it: the
// Markdown report, the JSON report and one figure per scenario. It only
// reads the Report; the harness (package experiment) does not import it.
//
// # Forms
//
//   - WriteMarkdown writes the report people read: a headline worded as
//     the targets are, per scenario a table of every policy (and by phase
//     on a phased scenario), the ratios to the reference with their 95 %
//     intervals and their geometric means, the reference against the
//     yardsticks and the note on the default one, the yardsticks' tables, and
//     with rewards shown how well each reward ranks the policies.
//   - WriteJSON writes the same figures for programs (docs/formats.md
//     lists the keys).
//   - WriteFigure writes the figure of one scenario as a PNG, one paper
//     column wide: the median, p95 and p99 slowdown per flow-size bin
//     divided by the reference's, with intervals, above the scenario's
//     flow-size CDF. WriteFigures writes every scenario's into a
//     directory, each named as FigureFile says.
//   - WriteDir writes report.md and the figures into a directory and
//     removes the figures an earlier WriteDir left there of scenarios not
//     evaluated again (the directory's ManifestFile lists what it wrote).
//
// A policy has the same colour and marker in every figure (figstyle.go).
//
// The files by job: markdown.go the Markdown, json.go the JSON,
// figure.go and figstyle.go the figures, yardstick.go and phases.go the
// yardsticks' and the phases' part of both forms.
package report
