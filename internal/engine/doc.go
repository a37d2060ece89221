// Package engine is what apply computes: the plan of a file's records
// against the platform's elements, its execution with outcomes settled
// exactly, saved plans and their checks, and the state file. It plans
// the records that wbsfile reads, and prints nothing.
//
// Run is the one way through: it keeps the sequence (lock and read the
// state, plan or verify a saved plan, write the state, make the changes,
// write the state again) that callers may not reorder, and the steps
// that write are unexported. Whether a run deletes, and what, is decided
// by Prune alone, at each step; the command only answers its question
// (Hooks.ConfirmPrune). A plan's Change holds only what its record
// cannot tell; Held, Desired and Step give both its states. Two states
// are compared by sameFields, sameLinks and sameState, and diffed by
// diffFields and diffStates, alone.
//
// The package is named for what it is to the apply command, which is its
// one caller and whose package is apply.
package engine
