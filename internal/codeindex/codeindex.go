// Package codeindex finds items by their code without a map of codes.
package codeindex

import (
	"cmp"
	"iter"
	"slices"
	"strings"
)

// Index finds one of n items by its code: it holds their indices
// sorted by code, 4 bytes an item, where a map of codes holds about ten
// times that.
type Index struct {
	sorted []int32
	code   func(i int) string
}

func New(n int, code func(i int) string) Index {
	x := Index{sorted: make([]int32, n), code: code}
	for i := range x.sorted {
		x.sorted[i] = int32(i)
	}
	slices.SortFunc(x.sorted, func(a, b int32) int { return cmp.Or(strings.Compare(code(int(a)), code(int(b))), cmp.Compare(a, b)) })
	return x
}

// Repeats returns, for each item whose code an earlier item has, the index
// of the first item of its code.
func (x Index) Repeats() map[int]int {
	first := map[int]int{}
	for k := 1; k < len(x.sorted); k++ {
		i, prev := int(x.sorted[k]), int(x.sorted[k-1])
		if x.code(i) == x.code(prev) {
			if f, ok := first[prev]; ok {
				prev = f
			}
			first[i] = prev
		}
	}
	return first
}

// Find returns the index of the item of code.
func (x Index) Find(code string) (int, bool) {
	k, ok := slices.BinarySearchFunc(x.sorted, code, func(i int32, code string) int { return strings.Compare(x.code(int(i)), code) })
	if !ok {
		return 0, false
	}
	return int(x.sorted[k]), true
}

// InOrder yields the items' indices in order of code (items of one code
// in their order), each with its position in that order.
func (x Index) InOrder() iter.Seq2[int, int32] {
	return func(yield func(int, int32) bool) {
		for k, i := range x.sorted {
			if !yield(k, i) {
				return
			}
		}
	}
}
