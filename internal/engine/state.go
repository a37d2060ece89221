package engine

import (
	"bufio"
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"iter"
	"maps"
	"os"
	"reflect"
	"slices"
	"time"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/wbsctl/wbsctl/internal/atomicfile"
	"github.com/wbsctl/wbsctl/internal/codeindex"
	"github.com/wbsctl/wbsctl/internal/filelock"
	"github.com/wbsctl/wbsctl/internal/links"
	"github.com/wbsctl/wbsctl/internal/strictjson"
	"github.com/wbsctl/wbsctl/internal/wbsfile"
)

// StateFormatVersion is the version of the state file.
const StateFormatVersion = 1

// stateFile is what the platform held for each element after the last
// apply, as far as apply wrote or read it, so that a re-apply reads an
// element's links only where the file's differ from the state's. It
// belongs to one platform and client id.
type stateFile struct {
	FormatVersion int    `json:"formatVersion"`
	BaseURL       string `json:"baseUrl"`
	ClientID      string `json:"clientId"`
	// Lineage names the state from when it was made; Serial counts its
	// writes. A run writes over only the state it read (see save).
	// States written before them have neither.
	Lineage  string        `json:"lineage,omitempty"`
	Serial   int64         `json:"serial,omitempty"`
	Elements stateElements `json:"elements"`

	// read is the file's head as the run found it, which a write must
	// find still there.
	read stateHead

	// From begin on, Elements holds only the elements the plan does not
	// name: those it names are written from the plan, and from the
	// results once finish has them, not copied into the map.
	plan    *Plan
	byCode  codeindex.Index // the plan's changes by code
	results *Results
	// dry is a plan that is not carried out: every element holds what
	// the plan read of it.
	dry bool

	// known holds, in place of Elements, the entries of the elements
	// that the records loadState was given name.
	known *knownStates
}

// newState returns an empty state of a platform and client id.
func newState(baseURL, clientID string) *stateFile {
	return &stateFile{FormatVersion: StateFormatVersion, BaseURL: baseURL, ClientID: clientID, Lineage: newLineage(),
		Elements: stateElements{}}
}

// newLineage draws a state's lineage: 128 random bits.
func newLineage() string {
	b := make([]byte, 16)
	rand.Read(b) // never fails: it crashes the program first
	return hex.EncodeToString(b)
}

// stateHead is what a write checks of the state file it replaces: that
// it is there or not as the run found it, with the lineage and serial
// the run read.
type stateHead struct {
	exists  bool
	lineage string
	serial  int64
}

func (h stateHead) String() string {
	if !h.exists {
		return "no state file"
	}
	if h.lineage == "" {
		return fmt.Sprintf("a state of an earlier wbsctl, serial %d", h.serial)
	}
	return fmt.Sprintf("lineage %s, serial %d", h.lineage, h.serial)
}

// ErrStateMoved is a state file that another writer replaced while the
// run held it: the run does not write over it.
var ErrStateMoved = errors.New("the state file changed since this run read it")

// readHead reads the head of the state file of path: whether it is
// there, and its lineage and serial, which a state writes before its
// elements.
func readHead(path string) (stateHead, error) {
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return stateHead{}, nil
	}
	if err != nil {
		return stateHead{}, err
	}
	defer f.Close()
	h := stateHead{exists: true}
	dec := jsontext.NewDecoder(bufio.NewReader(f))
	if tok, err := dec.ReadToken(); err != nil || tok.Kind() != '{' {
		return h, nil // damaged: its content is no state a run read
	}
	for dec.PeekKind() == '"' {
		tok, err := dec.ReadToken()
		if err != nil || tok.String() == "elements" {
			break
		}
		name := tok.String() // the token is void after the next read
		val, err := dec.ReadValue()
		if err != nil {
			break
		}
		switch name {
		case "lineage":
			json.Unmarshal(val, &h.lineage)
		case "serial":
			json.Unmarshal(val, &h.serial)
		}
	}
	return h, nil
}

// ErrStateUnusable is a state file that is damaged, of another version,
// or of another platform or client id.
var ErrStateUnusable = errors.New("the state file cannot be used")

// loadState reads the state of path for a plan of records (nil for a
// saved plan); a missing file is an empty state. The entries of the
// elements the records name are held only as far as a plan can use them,
// by knownStates.
func loadState(path, baseURL, clientID string, records []wbsfile.Record) (*stateFile, error) {
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return newState(baseURL, clientID), nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := readState(bufio.NewReader(f), records)
	if st != nil {
		st.read = stateHead{exists: true, lineage: st.Lineage, serial: st.Serial}
	}
	if pe := (*fs.PathError)(nil); errors.As(err, &pe) {
		return nil, pe // not read, rather than unusable
	}
	if err != nil {
		return nil, fmt.Errorf("%w: %s: %v (run with --refresh to rebuild it)", ErrStateUnusable, path, err)
	}
	if st.BaseURL != baseURL || st.ClientID != clientID {
		return nil, fmt.Errorf("%w: %s belongs to %s as %s, not %s as %s (use another file, or --refresh to start it anew)",
			ErrStateUnusable, path, st.BaseURL, st.ClientID, baseURL, clientID)
	}
	return st, nil
}

// readState reads a state file as a stream: held whole, a large state
// would be most of a re-apply's peak.
func readState(r io.Reader, records []wbsfile.Record) (*stateFile, error) {
	var st stateFile
	if records != nil {
		st.known = newKnownStates(records)
	}
	if err := strictjson.UnmarshalLarge(r, &st); err != nil {
		return nil, err
	}
	if st.FormatVersion != StateFormatVersion {
		return nil, fmt.Errorf("format version %d, want %d", st.FormatVersion, StateFormatVersion)
	}
	if st.Elements == nil {
		return nil, errors.New("no elements member")
	}
	return &st, nil
}

// UnmarshalJSONFrom reads a state file by strictjson's rules, for
// strictjson.UnmarshalLarge.
func (s *stateFile) UnmarshalJSONFrom(dec *jsontext.Decoder) error {
	seen := map[string]bool{}
	return readObject(dec, func(name string) error {
		if seen[name] {
			return strictjson.Repeated(dec)
		}
		seen[name] = true
		switch name {
		case "formatVersion":
			return strictjson.Member(dec, &s.FormatVersion)
		case "baseUrl":
			return strictjson.Member(dec, &s.BaseURL)
		case "clientId":
			return strictjson.Member(dec, &s.ClientID)
		case "lineage":
			return strictjson.Member(dec, &s.Lineage)
		case "serial":
			return strictjson.Member(dec, &s.Serial)
		case "elements":
			return s.Elements.read(dec, s.known)
		}
		return strictjson.UnknownMember(dec, reflect.TypeFor[stateFile]())
	})
}

// stateElements are a state's elements by code. They are read an element
// at a time, its links shared as it is read, rather than each element's
// lists held until the end of the file.
type stateElements map[string]*State

// UnmarshalJSONFrom reads the elements from dec.
func (m *stateElements) UnmarshalJSONFrom(dec *jsontext.Decoder) error {
	return m.read(dec, nil)
}

// read reads the elements from dec; those the records of known name go
// to known, not to m.
func (m *stateElements) read(dec *jsontext.Decoder, known *knownStates) error {
	if dec.PeekKind() == 'n' {
		_, err := dec.ReadToken()
		*m = nil
		return err
	}
	*m = stateElements{}
	return readObject(dec, func(code string) error {
		i, named := known.find(code)
		if _, given := (*m)[code]; given || named && known.given[i] {
			return strictjson.Repeated(dec)
		}
		var el State
		if err := strictjson.Member(dec, &el); err != nil {
			return err
		}
		el.BusinessOrganizations = links.Share(el.BusinessOrganizations)
		if named {
			known.add(i, &el)
		} else {
			(*m)[code] = &el
		}
		return nil
	})
}

// knownStates is what a state recorded of the elements a plan's records
// name, as far as it can spare a read of their links: an entry whose
// record names other links, or none, is not held. An entry that is just what
// its record states is held as a flag, so that an unchanged re-apply
// holds next to nothing of the state.
type knownStates struct {
	records  []wbsfile.Record
	byCode   codeindex.Index
	given    []bool // by record: the state has an entry
	asRecord []bool // by record: the entry is the record's state
	other    map[int]*State
}

func newKnownStates(records []wbsfile.Record) *knownStates {
	return &knownStates{records: records, byCode: codeindex.New(len(records), func(i int) string { return records[i].Code }),
		given: make([]bool, len(records)), asRecord: make([]bool, len(records)), other: map[int]*State{}}
}

// find returns the index of the record of code.
func (k *knownStates) find(code string) (int, bool) {
	if k == nil {
		return 0, false
	}
	return k.byCode.Find(code)
}

// add holds el, the state's entry of record i, as far as it spares a read.
func (k *knownStates) add(i int, el *State) {
	k.given[i] = true
	switch r := &k.records[i]; {
	case !r.OrganizationsSet || el.BusinessOrganizations == nil || !sameLinks(el.BusinessOrganizations, r.Organizations):
		// Its links are not the record's: they spare no read.
	case isRecordState(r, el):
		k.asRecord[i] = true
	default:
		k.other[i] = el
	}
}

// entry returns the state's entry of record i, where its links are those of
// the record; nil where the state has none or other links.
func (k *knownStates) entry(i int) *State {
	switch {
	case k == nil:
		return nil
	case k.asRecord[i]:
		return recordState(&k.records[i], nil)
	}
	return k.other[i]
}

// readObject reads the JSON object dec is at, calling member with each
// name, at its value.
func readObject(dec *jsontext.Decoder, member func(name string) error) error {
	tok, err := dec.ReadToken()
	if err != nil {
		return err
	}
	if tok.Kind() != '{' {
		return strictjson.Refuse("must be an object")
	}
	for dec.PeekKind() != '}' {
		name, err := dec.ReadToken()
		if err != nil {
			return err
		}
		if err := member(name.String()); err != nil {
			return err
		}
	}
	_, err = dec.ReadToken()
	return err
}

// save writes the state atomically, 0600, with its serial one more,
// unless another writer put a state in place of the one the run read (a
// CI cache restored over it, a copy by hand): a state older than the one
// the run started from is never written over a newer one, nor this run's
// over another's.
func (s *stateFile) save(path string) error {
	now, err := readHead(path)
	if err != nil {
		return err
	}
	// Where no state is left, none is written over: the run's is the
	// newest there is.
	if now.exists && now != s.read {
		return fmt.Errorf("%w (it read %s; it now holds %s): not written over; run again to plan from the state it holds now", ErrStateMoved, s.read, now)
	}
	if s.Lineage == "" {
		s.Lineage = newLineage()
	}
	s.Serial++
	f, err := atomicfile.Create(path, 0o600)
	if err != nil {
		return err
	}
	defer f.Abort()
	w := bufio.NewWriter(f)
	if err := s.write(w); err != nil {
		return err
	}
	if err := w.Flush(); err != nil {
		return err
	}
	if err := f.Commit(); err != nil {
		return err
	}
	s.read = stateHead{exists: true, lineage: s.Lineage, serial: s.Serial}
	return nil
}

// write writes s an element at a time, as json.Marshal writes a state
// with the same elements, without holding the whole file as
// json.Marshal would. From begin on, the elements are
// those of entries.
func (s *stateFile) write(w *bufio.Writer) error {
	head, err := json.Marshal(struct {
		FormatVersion int    `json:"formatVersion"`
		BaseURL       string `json:"baseUrl"`
		ClientID      string `json:"clientId"`
		Lineage       string `json:"lineage,omitempty"`
		Serial        int64  `json:"serial,omitempty"`
	}{s.FormatVersion, s.BaseURL, s.ClientID, s.Lineage, s.Serial})
	if err != nil {
		return err
	}
	w.Write(head[:len(head)-1])
	if s.Elements == nil {
		_, err := w.WriteString(`,"elements":null}`)
		return err
	}
	w.WriteString(`,"elements":{`)
	// One encoder and its buffer for every element: a large run's end
	// writes an element each, and an encoder each would be a burst of
	// garbage at the run's peak.
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	first := true
	for code, el := range s.entries() {
		if !first {
			w.WriteByte(',')
		}
		first = false
		buf.Reset()
		if err := enc.Encode(code); err != nil {
			return err
		}
		buf.Truncate(buf.Len() - 1) // Encode's newline
		buf.WriteByte(':')
		if err := enc.Encode(el); err != nil {
			return err
		}
		w.Write(buf.Bytes()[:buf.Len()-1])
	}
	_, err = w.WriteString("}}")
	return err
}

// entries yields the state's elements in the order of their codes: those
// of the map, merged with those of the plan. A yielded state is the
// iterator's own once yield returns.
func (s *stateFile) entries() iter.Seq2[string, *State] {
	return func(yield func(string, *State) bool) {
		var scratch State
		kept := slices.Sorted(maps.Keys(s.Elements))
		k := 0
		for _, i := range s.byCode.InOrder() {
			ch := &s.plan.Changes[i]
			for ; k < len(kept) && kept[k] < ch.Code; k++ {
				if !yield(kept[k], s.Elements[kept[k]]) {
					return
				}
			}
			if el := s.entryFor(int(i), &scratch); el != nil && !yield(ch.Code, el) {
				return
			}
		}
		for ; k < len(kept); k++ {
			if !yield(kept[k], s.Elements[kept[k]]) {
				return
			}
		}
	}
}

// entryFor is the entry the state holds for the plan's change i, or nil
// when it has none. Before the results, an element about to change has
// none, so that an interrupted run leaves no entry that may no longer
// hold; the unchanged ones hold what the plan read. A dry run's elements
// all hold what the plan read. With the results, an element changed as
// planned holds the plan's after; a failed or skipped change has none,
// so that the next run reads it. A create's state is made in scratch.
func (s *stateFile) entryFor(i int, scratch *State) *State {
	ch := &s.plan.Changes[i]
	if s.dry {
		return ch.held(scratch)
	}
	if s.results == nil {
		if ch.Action == ActionUnchanged {
			return ch.desired(scratch)
		}
		return nil
	}
	if i >= s.results.Len() || s.results.At(i).Status != StatusOK || ch.Action == ActionDelete {
		return nil
	}
	return ch.desired(scratch)
}

// begin takes the plan, before any write: from then on the state holds
// the unchanged elements as the plan read them, nothing for those about
// to change (see entryFor), and, in its map, the elements the plan does
// not name.
func (s *stateFile) begin(plan *Plan) {
	s.plan, s.results = plan, nil
	s.byCode = codeindex.New(len(plan.Changes), func(i int) string { return plan.Changes[i].Code })
	kept := stateElements{}
	for code, el := range s.Elements {
		if _, named := s.byCode.Find(code); !named {
			kept[code] = el
		}
	}
	s.Elements = kept
}

// observed records a dry run: each element the plan names holds what
// the plan read of it, the links where they were read or trusted, and a
// create none.
func (s *stateFile) observed() {
	s.dry = true
}

// finish records what was done, by results.
func (s *stateFile) finish(results *Results) {
	s.results = results
}

// ErrStateLocked is a state file that another apply is using.
var ErrStateLocked = errors.New("another wbsctl apply is using the state file")

// LockHolder is who holds a state's lock: written into the lock file while
// a run holds it, so that a run refused, and a person, can tell which job
// to wait for.
type LockHolder struct {
	// ID names this holding of the lock.
	ID   string `json:"id"`
	Host string `json:"host"`
	PID  int    `json:"pid"`
	// Operation is what the holder does, such as "apply -f wbs.csv".
	Operation string `json:"operation"`
	// JobURL is the CI job's address where one is known.
	JobURL string    `json:"jobUrl,omitempty"`
	Taken  time.Time `json:"taken"`
}

func (h *LockHolder) String() string {
	s := fmt.Sprintf("%s on %s (pid %d, lock %s) since %s", h.Operation, h.Host, h.PID, h.ID, h.Taken.UTC().Format(time.RFC3339))
	if h.JobURL != "" {
		s += ", " + h.JobURL
	}
	return s
}

// NewLockHolder returns a holder of a new id for operation, on this host
// and process, taken now.
func NewLockHolder(operation, jobURL string, now time.Time) LockHolder {
	host, _ := os.Hostname()
	return LockHolder{ID: newLineage()[:16], Host: host, PID: os.Getpid(), Operation: operation, JobURL: jobURL, Taken: now.UTC().Truncate(time.Second)}
}

// LockState locks the state file of path against a second apply, for as
// long as the process holds it, with holder written into the lock file;
// unlock ends it. Another run's lock fails at once, with ErrStateLocked
// naming its holder. The lock is on path.lock, which stays behind, empty:
// a lock that a killed process held ends with it.
func LockState(path string, holder LockHolder) (unlock func(), err error) {
	note, err := json.Marshal(holder)
	if err != nil {
		return nil, err
	}
	unlock, err = filelock.TryLockAs(path, note)
	if errors.Is(err, filelock.ErrLocked) {
		return nil, fmt.Errorf("%w: %s: held by %s; wait for it to end, or give --lock-timeout", ErrStateLocked, path, StateLockHolder(path))
	}
	return unlock, err
}

// StateLockHolder names who holds the lock of the state file of path, as
// far as its lock file tells: "another process" where it does not.
func StateLockHolder(path string) string {
	if h := ReadLockHolder(path); h != nil {
		return h.String()
	}
	return "another process (it wrote no holder)"
}

// ReadLockHolder returns who holds the lock of the state file of path, nil
// when no holder is written.
func ReadLockHolder(path string) *LockHolder {
	note, err := filelock.Holder(path)
	if err != nil || note == nil {
		return nil
	}
	var h LockHolder
	if json.Unmarshal(note, &h) != nil || h.ID == "" {
		return nil
	}
	return &h
}

// lockState takes the state's lock, waiting up to timeout for another
// run to release it: waiting (when given) is told once, with the
// holder, when the wait begins; the wait ends early with ctx.
func lockState(ctx context.Context, path string, holder LockHolder, timeout time.Duration, waiting func(holder string)) (func(), error) {
	unlock, err := LockState(path, holder)
	if !errors.Is(err, ErrStateLocked) || timeout <= 0 {
		return unlock, err
	}
	if waiting != nil {
		waiting(StateLockHolder(path))
	}
	deadline := time.NewTimer(timeout)
	defer deadline.Stop()
	poll := time.NewTicker(250 * time.Millisecond)
	defer poll.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil, fmt.Errorf("waiting for the state's lock: %w", context.Cause(ctx))
		case <-deadline.C:
			return nil, fmt.Errorf("%w after waiting %s", err, timeout)
		case <-poll.C:
			if unlock, err = LockState(path, holder); !errors.Is(err, ErrStateLocked) {
				return unlock, err
			}
		}
	}
}

// StateSummary is what `wbsctl state show` tells of a state file.
type StateSummary struct {
	Path     string      `json:"path"`
	BaseURL  string      `json:"baseUrl"`
	ClientID string      `json:"clientId"`
	Lineage  string      `json:"lineage"`
	Serial   int64       `json:"serial"`
	Elements int         `json:"elements"`
	Lock     *LockHolder `json:"lock"`
}

// InspectState reads the state file of path for a person: its platform,
// lineage, serial, how many elements it holds, and who holds its lock.
// It takes no lock: what it reads is what the last write left.
func InspectState(path string) (*StateSummary, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := readState(bufio.NewReader(f), nil)
	if err != nil {
		return nil, fmt.Errorf("%w: %s: %v", ErrStateUnusable, path, err)
	}
	return &StateSummary{Path: path, BaseURL: st.BaseURL, ClientID: st.ClientID, Lineage: st.Lineage, Serial: st.Serial,
		Elements: len(st.Elements), Lock: ReadLockHolder(path)}, nil
}
