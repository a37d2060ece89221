package apply

import "time"

// SetProgressInterval sets the time between two progress lines for a
// test, and puts it back when the test ends.
func SetProgressInterval(t interface{ Cleanup(func()) }, d time.Duration) {
	old := progressInterval
	progressInterval = d
	t.Cleanup(func() { progressInterval = old })
}
