// Package tests holds graphcc's integration tests: the graphcc command
// built and run as a user runs it (gen, sim and compare through files,
// twice with the same seed; bad input), and the whole testbed loop against
// real BMv2 switches (skipped, naming what is missing, where BMv2 is not
// installed or the tests do not run as root; without p4c it runs the
// compiled program committed in p4src); and a check that every relative
// link of the Markdown documentation resolves.
package tests
