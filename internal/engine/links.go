package engine

import (
	"encoding/binary"
	"sync"

	"github.com/wbsctl/wbsctl/sdk"
)

// linkLists holds one copy of each distinct list of links, up to a bound.
// A held list is never modified: whoever needs another list makes one.
type linkLists struct {
	mu    sync.Mutex
	max   int
	lists map[string][]sdk.BusinessOrganization
}

func newLinkLists(max int) *linkLists {
	return &linkLists{max: max, lists: map[string][]sdk.BusinessOrganization{}}
}

// sharedLinks are the lists of links apply holds: an ERP's elements draw
// their links from a few companies and plants, so that 200,000 records
// hold a few hundred lists, not 200,000.
var sharedLinks = newLinkLists(1 << 16)

// shareLinks returns sharedLinks.share(orgs).
func shareLinks(orgs []sdk.BusinessOrganization) []sdk.BusinessOrganization {
	return sharedLinks.share(orgs)
}

// share returns the held list equal to orgs, in its order, or orgs itself
// once l holds its bound of lists. nil and an empty list stay as they are:
// they mean different things.
func (l *linkLists) share(orgs []sdk.BusinessOrganization) []sdk.BusinessOrganization {
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
