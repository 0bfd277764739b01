// Package testfabric holds the fabrics and traces that tests of several
// packages build, failing the test on error. It imports scenario and
// workload, so their own tests cannot use it.
package testfabric
