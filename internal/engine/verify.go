package engine

import (
	"cmp"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"
)

// A state makes a plan cheap by trusting the links an earlier run read or
// wrote; a link changed outside wbsctl since is not seen while it is
// trusted. So trust is bounded: each plan reads again the links of the
// entries verified longest ago, within a budget, and a state records for
// each element when its links were last verified. With the default
// budget, a twentieth of the trusted entries, every entry is read again
// within 20 plans.

// Stamp is a time, as a state file writes it: RFC 3339 in UTC, to the
// nanosecond, so that the reads of one run are ordered. The zero Stamp
// is no time.
type Stamp int64

// StampOf is t as a Stamp.
func StampOf(t time.Time) Stamp { return Stamp(t.UnixNano()) }

// Time is s as a time, in UTC.
func (s Stamp) Time() time.Time { return time.Unix(0, int64(s)).UTC() }

func (s Stamp) MarshalJSON() ([]byte, error) {
	return []byte(strconv.Quote(s.Time().Format(time.RFC3339Nano))), nil
}

// MarshalYAML writes s as MarshalJSON does, for -o yaml.
func (s Stamp) MarshalYAML() (any, error) { return s.Time().Format(time.RFC3339Nano), nil }

func (s *Stamp) UnmarshalJSON(b []byte) error {
	text, err := strconv.Unquote(string(b))
	if err != nil {
		return errors.New("must be a time, as 2026-01-02T15:04:05Z")
	}
	t, err := time.Parse(time.RFC3339Nano, text)
	if err != nil {
		return errors.New("must be a time, as 2026-01-02T15:04:05Z")
	}
	*s = StampOf(t)
	return nil
}

// VerifyBudget is how many trusted entries a plan verifies: a count, or
// a share of the entries (Percent). The zero VerifyBudget is the default.
type VerifyBudget struct {
	Count   int
	Percent int // of the trusted entries, rounded up; used when Share
	Share   bool
	set     bool
}

// DefaultVerifyShare and MaxDefaultVerify make the default budget: a
// twentieth of the trusted entries, at most 1,000 a plan.
const (
	DefaultVerifyShare = 5
	MaxDefaultVerify   = 1000
)

// ParseVerifyBudget reads --verify-budget: "N" entries or "P%" of them.
func ParseVerifyBudget(text string) (VerifyBudget, error) {
	if p, ok := strings.CutSuffix(text, "%"); ok {
		n, err := strconv.Atoi(p)
		if err != nil || n < 0 || n > 100 {
			return VerifyBudget{}, fmt.Errorf("--verify-budget %q: a share is 0%% to 100%%", text)
		}
		return VerifyBudget{Percent: n, Share: true, set: true}, nil
	}
	n, err := strconv.Atoi(text)
	if err != nil || n < 0 {
		return VerifyBudget{}, fmt.Errorf("--verify-budget %q: give a count of elements (0 trusts the state as it is) or a share, as 5%%", text)
	}
	return VerifyBudget{Count: n, set: true}, nil
}

// of is the budget for trusted entries: how many of them are read again.
func (b VerifyBudget) of(trusted int) int {
	switch {
	case !b.set:
		return min((trusted*DefaultVerifyShare+99)/100, MaxDefaultVerify)
	case b.Share:
		return (trusted*b.Percent + 99) / 100
	}
	return min(b.Count, trusted)
}

// String is the budget as --verify-budget gives it.
func (b VerifyBudget) String() string {
	switch {
	case !b.set:
		return fmt.Sprintf("%d%% (at most %d)", DefaultVerifyShare, MaxDefaultVerify)
	case b.Share:
		return fmt.Sprintf("%d%%", b.Percent)
	}
	return strconv.Itoa(b.Count)
}

// Verification is how far a plan checked the links it holds: Read were
// read from the platform by this plan (Rechecked of them because the
// budget chose them), Trusted were taken from the state, the oldest of
// them verified at Oldest (zero: a state that did not record when), and
// Unread were not read, the plan's time having run out (a partial plan).
type Verification struct {
	Read      int   `json:"read"`
	Rechecked int   `json:"rechecked"`
	Trusted   int   `json:"trusted"`
	Oldest    Stamp `json:"oldest,omitzero"`
	// Unread were to be read and were not: the plan's time ran out.
	Unread int `json:"unread,omitempty"`
}

// verification counts the links of changes: read by the plan (read of
// them), and trusted.
func verification(changes []Change, read, rechecked int) *Verification {
	v := &Verification{Read: read, Rechecked: rechecked}
	for i := range changes {
		if ch := &changes[i]; ch.trusted {
			if v.Trusted == 0 || ch.verified < v.Oldest {
				v.Oldest = ch.verified
			}
			v.Trusted++
		}
	}
	return v
}

// String says what the plan verified, as "links verified this run: 120
// of 2000; oldest verification: 3 days ago".
func (v *Verification) String(now time.Time) string {
	s := fmt.Sprintf("links verified this run: %d of %d", v.Read, v.Read+v.Trusted+v.Unread)
	if v.Unread > 0 {
		s += fmt.Sprintf(" (%d not read: the plan is partial)", v.Unread)
	}
	switch {
	case v.Trusted == 0:
		return s + "; none trusted from the state"
	case v.Oldest == 0:
		return s + "; oldest verification: not recorded (a state written before verification times)"
	}
	return s + "; oldest verification: " + age(now.Sub(v.Oldest.Time())) + " ago"
}

// age is d as a person reads it: seconds, minutes, hours or days.
func age(d time.Duration) string {
	switch {
	case d < time.Minute:
		return fmt.Sprintf("%ds", max(0, int(d.Seconds())))
	case d < time.Hour:
		return fmt.Sprintf("%d min", int(d.Minutes()))
	case d < 48*time.Hour:
		return fmt.Sprintf("%d h", int(d.Hours()))
	}
	return fmt.Sprintf("%d days", int(d.Hours()/24))
}

// rechecks is how many entries recheck chose.
func (k *knownStates) rechecks() int {
	if k == nil {
		return 0
	}
	return k.rechecked
}

// recheck chooses the trusted entries a plan reads again: the budget of
// them verified longest ago (those with no time first), in file order
// among equals. An entry chosen is not trusted (entry returns nil).
func (k *knownStates) recheck(budget VerifyBudget) {
	if k == nil {
		return
	}
	var trusted []int
	for i := range k.records {
		if k.entry(i) != nil {
			trusted = append(trusted, i)
		}
	}
	n := budget.of(len(trusted))
	if n == 0 {
		return
	}
	slices.SortStableFunc(trusted, func(a, b int) int { return cmp.Compare(k.verified[a], k.verified[b]) })
	k.distrusted = make([]bool, len(k.records))
	for _, i := range trusted[:n] {
		k.distrusted[i] = true
	}
	k.rechecked = n
}
