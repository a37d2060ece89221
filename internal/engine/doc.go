// Package engine is what apply computes: the plan of a file's records
// against the platform's elements, its execution with outcomes settled
// exactly, saved plans and their checks, and the state file. It plans
// the records that wbsfile reads, and prints nothing.
package engine
