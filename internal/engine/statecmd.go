package engine

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"

	"github.com/wbsctl/wbsctl/internal/statestore"
)

// What `wbsctl state` does with a state, beside a run: show it, and copy
// it between stores by statestore's rules.

// StateSummary is what `wbsctl state show` tells of a state file.
type StateSummary struct {
	Path     string             `json:"path"`
	BaseURL  string             `json:"baseUrl"`
	ClientID string             `json:"clientId"`
	Lineage  string             `json:"lineage"`
	Serial   int64              `json:"serial"`
	Elements int                `json:"elements"`
	Lock     *statestore.Holder `json:"lock"`
	Break    *BreakRecord       `json:"break,omitempty"`
}

// InspectState reads the state of store for a person: its platform,
// lineage, serial, how many elements it holds, and who holds its lock.
// It takes no lock: what it reads is what the last write left.
func InspectState(ctx context.Context, store statestore.Store) (*StateSummary, error) {
	r, _, err := store.Read(ctx)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	st, err := readState(bufio.NewReader(r), nil)
	if err != nil {
		return nil, fmt.Errorf("%w: %s: %s", ErrStateUnusable, store, statestore.BucketText(err.Error()))
	}
	holder, err := store.Holder(ctx)
	if err != nil {
		return nil, err
	}
	return &StateSummary{Path: store.String(), BaseURL: st.BaseURL, ClientID: st.ClientID, Lineage: st.Lineage, Serial: st.Serial,
		Elements: len(st.Elements), Lock: holder, Break: st.Break}, nil
}

// ErrStateRefused is a state that state push does not copy over another.
var ErrStateRefused = statestore.ErrStateRefused

// CopyState copies the state of from to to, holding to's lock as holder
// while it does, and returns what was copied. It refuses a damaged state,
// and over an existing one a state of another platform or client id, and,
// unless force, one of another lineage or a lower serial. The copy is
// written over the version of to that it checked.
//
// toArg is how the command was given to, for the command that releases
// its lock ("" where WBSCTL_STATE gave it).
func CopyState(ctx context.Context, from, to statestore.Store, toArg string, holder statestore.Holder, force bool) (_ *StateSummary, err error) {
	r, _, err := from.Read(ctx)
	if err != nil {
		return nil, err
	}
	data, err := io.ReadAll(r)
	r.Close()
	if err != nil {
		return nil, err
	}
	src, err := readState(bytes.NewReader(data), nil)
	if err != nil {
		return nil, fmt.Errorf("%w: %s: %s", ErrStateUnusable, from, statestore.BucketText(err.Error()))
	}
	held, err := statestore.Acquire(ctx, ctx, to, statestore.Acquisition{Holder: holder, StateArg: toArg})
	if err != nil {
		return nil, err
	}
	defer func() { err = errors.Join(err, held.Release(ctx)) }()
	version, err := checkCopy(ctx, src, to, force)
	if err != nil {
		return nil, err
	}
	if _, err := to.Write(ctx, version, func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	}); err != nil {
		if errors.Is(err, statestore.ErrConflict) {
			return nil, fmt.Errorf("%w: %s changed while it was copied; nothing was written", ErrStateMoved, to)
		}
		return nil, err
	}
	return &StateSummary{Path: to.String(), BaseURL: src.BaseURL, ClientID: src.ClientID, Lineage: src.Lineage, Serial: src.Serial,
		Elements: len(src.Elements)}, nil
}

// checkCopy reads the state to holds, once, and returns its version,
// NoVersion where it holds none; it refuses src over another platform's
// state, and unless force another lineage's or a lower serial.
func checkCopy(ctx context.Context, src *stateFile, to statestore.Store, force bool) (statestore.Version, error) {
	r, version, err := to.Read(ctx)
	if errors.Is(err, fs.ErrNotExist) {
		return statestore.NoVersion, nil
	}
	if err != nil {
		return statestore.NoVersion, err
	}
	dst, err := readState(bufio.NewReader(r), nil)
	r.Close()
	var head *stateHead
	if err == nil {
		head = &dst.stateHead
	}
	return version, statestore.CopyRefusal(&src.stateHead, head, err, to, force)
}
