// Package benchtable holds docs/benchmarks.md to scripts/bench, in a test:
// the page is one table, pasted from one run of the script, under the
// line that names the run's machine, and every row of the table is a row
// the script prints (`scripts/bench -list`), in its order, and every row
// the script prints is on the page.
package benchtable
