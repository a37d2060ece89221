// Package erpmap reads exports as ERPs write them (SAP, Oracle EBS,
// Dynamics 365, Business Central) through a map file: which row is the
// header, which rows to keep, and which column or expression gives each
// field of a WBS element. It knows nothing of plans, the platform or the
// terminal; what it gives is what internal/wbsfile gives for wbsctl's own
// files, a *wbsfile.File of records and problems under the same contract
// with apply.
//
// A map file, YAML:
//
//	version: 1
//	header: {find: [PSP-Element, Bezeichnung]}   # or {row: 4}; row 1 when left out
//	where: 'Buchungskreis == "1000"'             # rows to keep; the others are counted, not read
//	wbsElementCode: PSP-Element                  # a bare name is a column
//	description: {expr: 'trim(Bezeichnung)'}
//	isActive:
//	  column: Systemstatus
//	  words: true                                # the cell holds several statuses
//	  map: {CLSD: false, TECO: false, DLFL: false, REL: true}   # the first listed that the cell holds wins
//	  else: error                                # or true / false
//	organizations:                               # an entity type and its column
//	  company: Buchungskreis
//	  plant: Werk                                # an empty cell: no link of that type
//	  costCenter: {column: Kostenstelle, alpha: true}   # 0000004711 -> 4711
//	  branch: {value: B3}                        # the same for every row
//
// A column is named as the header shows it: matched exactly, else
// regardless of case and surrounding spaces when that finds one column.
// Expressions are those of github.com/expr-lang/expr (see expr.go),
// each column a name whose value is its cell, as text: text in quotes,
// ==, !=, in [..], &&, ||, !, contains, startsWith, endsWith, expr-lang's
// builtins (trim, upper, lower, replace, …) and the functions alpha,
// concat and hasWord; a name an identifier cannot spell is written
// $env["PSP-Element"]. Parse checks each expression's syntax and type;
// Read compiles it once against the export's header, before any row.
//
// # Reading an export through a map (apply --map)
//
//	m, err := erpmap.Parse("sap.wbsmap.yaml", mapBytes)   // *erpmap.Error: every problem, each with the map's line
//	t, err := erpmap.ReadTable(exportBytes, format, readOpts) // CSV (any delimiter, encoding), xlsx, JSON, NDJSON
//	defer t.Close()
//	res, err := m.Read(t, wbsfile.Checks{AllowInvisibleCodes: …})
//	// err: an *erpmap.Error (header not found, merged header cell, a name
//	// given twice or not in the header), before any row was read.
//	file := res.File           // *wbsfile.File: Records, Problems, Invalid, InvalidCodes, CodeUnknown, Notes
//	res.Counts                 // rows read, filtered, mapped, invalid; elements
//	m.OwnedTypes()             // the entity types whose links the records state
//	m.Digest()                 // "sha256:…" of the map file, for a saved plan
//
// Both *Error and *ReadError match sdk.ErrValidation (exit 5): nothing is
// sent. The records' links are those of OwnedTypes only, with
// OrganizationsSet when the map has organizations: a plan must leave the
// links of other types as the platform holds them (the map owns only the
// types it names), and remove a link of an owned type the export no
// longer states. A record's Description and IsActive are nil where the
// map has no rule for them, as in a file without the column.
//
// A Table is an iterator of rows with their line (a text file's line, a
// sheet's row) and a function naming a cell ("Daten!F12"); any reader can
// give one. ReadTable is this package's; once internal/wbsfile offers its
// rows (with its workbook checks: dates, formats, hostile parts), apply
// can feed those to Read instead.
//
// Problems name the export's cell (a workbook) or line (a text file, with
// the column), the element's code, the map's rule and the map's line:
//
//	Daten!F12 (code "P-100.01"): isActive: "LKD" matches no entry of isActive.map (sap.wbsmap.yaml:9)
package erpmap
