// Package fileio writes output files whole or not at all, and checks
// before a long run that they can be written.
//
//   - WriteAtomic writes a temporary file beside the destination, syncs it
//     and renames it into place, so a failed run leaves the old file (or
//     none), never half of a new one; WriteJSON is the JSON every output
//     file of graphcc uses, and JSONFloats writes NaN in it as null.
//   - CheckOutputs refuses, before the run, an output whose directory is
//     missing, that is a directory, or that is another output or an input
//     of the run (CheckDistinct); CheckOutputDir does the same for a
//     directory of outputs.
package fileio
