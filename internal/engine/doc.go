// Package engine is what apply computes: the plan of a file's records
// against the platform's elements, its execution with outcomes settled
// exactly, saved plans and their checks, and the state file. It reads
// files through wbsfile and prints nothing.
package engine
