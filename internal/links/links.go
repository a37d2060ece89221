// Package links holds lists of business organizations (an element's
// links) as wbsctl keeps them: one copy of each distinct list, and lists
// without repeats.
package links

import (
	"encoding/binary"
	"slices"
	"sync"

	"github.com/wbsctl/wbsctl/sdk"
)

// lists holds one copy of each distinct list of links, up to a bound.
// A held list is never modified: whoever needs another list makes one.
type lists struct {
	mu    sync.Mutex
	max   int
	lists map[string][]sdk.BusinessOrganization
}

func newLists(max int) *lists {
	return &lists{max: max, lists: map[string][]sdk.BusinessOrganization{}}
}

// shared are the lists of links apply holds: an ERP's elements draw
// their links from a few companies and plants, so that 200,000 records
// hold a few hundred lists, not 200,000.
var shared = newLists(1 << 16)

// Share returns the held list equal to orgs (see lists.share), so that
// the records and states of an ERP's file hold a few hundred lists, not
// one each.
func Share(orgs []sdk.BusinessOrganization) []sdk.BusinessOrganization {
	return shared.share(orgs)
}

// share returns the held list equal to orgs, in its order, or orgs itself
// once l holds its bound of lists. nil and an empty list stay as they are:
// they mean different things.
func (l *lists) share(orgs []sdk.BusinessOrganization) []sdk.BusinessOrganization {
	if len(orgs) == 0 {
		return orgs
	}
	// The key of a few links is built on the stack: the lists of most
	// records are found, not stored.
	var buf [128]byte
	key := buf[:0]
	for _, o := range orgs {
		key = binary.AppendUvarint(key, uint64(len(o.EntityType)))
		key = append(key, o.EntityType...)
		key = binary.AppendUvarint(key, uint64(len(o.Code)))
		key = append(key, o.Code...)
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if list, ok := l.lists[string(key)]; ok {
		return list
	}
	if len(l.lists) >= l.max {
		return orgs
	}
	list := append([]sdk.BusinessOrganization(nil), orgs...)
	list = list[:len(list):len(list)] // an append to it copies it
	l.lists[string(key)] = list
	return list
}

// Dedupe returns orgs without repeats, in their order: orgs itself when it
// has none, as is usual, so that the plan holds no second copy of the
// file's links.
func Dedupe(orgs []sdk.BusinessOrganization) []sdk.BusinessOrganization {
	if !hasRepeats(orgs) {
		return orgs
	}
	seen := map[sdk.BusinessOrganization]bool{}
	var out []sdk.BusinessOrganization
	for _, o := range orgs {
		if !seen[o] {
			seen[o] = true
			out = append(out, o)
		}
	}
	return out
}

// hasRepeats reports whether an organization is in orgs twice.
func hasRepeats(orgs []sdk.BusinessOrganization) bool {
	if len(orgs) <= 16 {
		for i := 1; i < len(orgs); i++ {
			if slices.Contains(orgs[:i], orgs[i]) {
				return true
			}
		}
		return false
	}
	seen := make(map[sdk.BusinessOrganization]bool, len(orgs))
	for _, o := range orgs {
		if seen[o] {
			return true
		}
		seen[o] = true
	}
	return false
}
