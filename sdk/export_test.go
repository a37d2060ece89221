package sdk

// Internals the external tests use.

// BenchPageBody is a list page of 50 elements, as the reference server
// sends it.
var BenchPageBody = pageBody
