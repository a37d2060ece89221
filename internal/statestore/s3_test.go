package statestore

import (
	"crypto/md5"
	"encoding/hex"
	"errors"
	"io"
	"strings"
	"testing"
)

// A read whose content is not the version the server named (versitygw
// can answer a read racing a write with the new ETag and the old data)
// ends in ErrTornRead, so that no write is made over a version whose
// content was not read; a version that is no MD5 is not checked.
func TestTornReadIsRefused(t *testing.T) {
	sum := md5.Sum([]byte("new"))
	etag := Version(`"` + hex.EncodeToString(sum[:]) + `"`)
	for _, tc := range []struct {
		body    string
		version Version
		torn    bool
	}{
		{"new", etag, false},
		{"old", etag, true},
		{"old", `"CRC64NVME-AAAAAAAAAAA="`, false},
		{"old", `"0123456789abcdef0123456789abcdef-2"`, false},
	} {
		_, err := io.ReadAll(checkedBody(io.NopCloser(strings.NewReader(tc.body)), tc.version, "k"))
		if got := errors.Is(err, ErrTornRead); got != tc.torn {
			t.Errorf("%q at %s: %v, want torn %v", tc.body, tc.version, err, tc.torn)
		}
	}
}
