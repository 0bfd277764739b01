// Package version names the graphcc build that is running: the line
// `graphcc version` prints, and the identity that evaluation part files
// record so that graphcc merge refuses parts of another build.
package version
