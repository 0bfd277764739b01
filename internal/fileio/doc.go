// Package fileio writes output files whole or not at all: WriteAtomic
// writes a temporary file beside the destination, syncs it and renames it
// into place, so a failed run leaves the old file (or none), never half of
// a new one.
package fileio
