// Package policy builds the ECN control policies a run can use: a Factory
// makes a fresh control.Policy and its starting settings for each run.
// static, fixed thresholds scaled by port rate, settings by port role
// (edge) and a reactive rule are here; the learned ones come from package
// gnn.
package policy
