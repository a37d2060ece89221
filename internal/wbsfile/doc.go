// Package wbsfile reads and writes the files of WBS elements that wbsctl
// apply reads and export writes: CSV (with a comma, semicolon or tab, in
// UTF-8, UTF-16 or a legacy encoding), JSON, NDJSON, YAML and Excel
// workbooks.
//
// Reading keeps one contract with apply: every record of a file becomes a
// Record or a Problem naming its line (or cell), field and limit. A
// problem carries the record's code whenever any reading of the file can
// find it (File.InvalidCodes); when one cannot, File.CodeUnknown says so,
// and apply's prune deletes nothing. Every row of a code with a problem is
// left out together (File.Invalid), so that no part of an element is
// applied alone. The package knows nothing of plans, the platform or the
// terminal.
package wbsfile
