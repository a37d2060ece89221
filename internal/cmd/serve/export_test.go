package serve

// Run is the run function of the command, for the tests of package
// serve_test, which run the server beside the CLI.
var Run = runServe
