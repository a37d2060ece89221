// Package docscheck holds the documentation to the tool, in tests: every
// flag that README.md, docs/*.md and the newest sections of CHANGELOG.md
// name is a flag of the command they name it with, and not a deprecated
// one (TestDocumentedFlagsExist); docs/install.md states the modules a
// program that imports the SDK gets in its go.sum, as a program built
// here gets them (TestInstallStatesTheSDKsGoSum); and the files the
// pages point to are there.
//
// The shell blocks of the pages are run by scripts/doc-blocks.
package docscheck
