package codeindex

import (
	"maps"
	"slices"
	"testing"
)

// Items are found by code, a repeated code points at its first item, and
// InOrder walks the items sorted by code, each code's in their order.
func TestIndex(t *testing.T) {
	codes := []string{"B", "A", "C", "A", "B", "A"}
	x := New(len(codes), func(i int) string { return codes[i] })
	for _, code := range []string{"A", "B", "C"} {
		if i, ok := x.Find(code); !ok || codes[i] != code {
			t.Errorf("Find(%q) = %d, %v", code, i, ok)
		}
	}
	if _, ok := x.Find("D"); ok {
		t.Error("Find(D) found an item")
	}
	if got, want := x.Repeats(), map[int]int{3: 1, 5: 1, 4: 0}; !maps.Equal(got, want) {
		t.Errorf("Repeats() = %v, want %v", got, want)
	}
	var order []int32
	for k, i := range x.InOrder() {
		if k != len(order) {
			t.Fatalf("position %d at the %d-th item", k, len(order))
		}
		order = append(order, i)
	}
	if want := []int32{1, 3, 5, 0, 4, 2}; !slices.Equal(order, want) {
		t.Errorf("InOrder() = %v, want %v", order, want)
	}
}
