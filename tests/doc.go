// Package tests holds graphcc's integration tests: the whole testbed loop
// against real BMv2 switches (skipped, naming what is missing, where BMv2
// and p4c are not installed or the tests do not run as root), and
// end-to-end runs of the graphcc command.
package tests
