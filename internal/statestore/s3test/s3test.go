// Package s3test starts an S3 server in the test's process (gofakes3,
// which honours If-Match and If-None-Match on single-part writes), for
// tests of states kept in a bucket.
package s3test

import (
	"net/http/httptest"
	"os"
	"testing"

	"github.com/johannesboyne/gofakes3"
	"github.com/johannesboyne/gofakes3/backend/s3mem"
)

// Start starts a server with the bucket "states" for the test's life and
// returns the state URL of key on it. It takes any credential: Env gives
// the AWS SDK one.
func Start(t testing.TB, key string) string {
	t.Helper()
	backend := s3mem.New()
	srv := httptest.NewServer(gofakes3.New(backend).Server())
	t.Cleanup(srv.Close)
	if err := backend.CreateBucket("states"); err != nil {
		t.Fatal(err)
	}
	return "s3://states/" + key + "?endpoint=" + srv.URL + "&region=us-east-1&use_path_style=true"
}

// Env gives the AWS SDK a credential that the test servers take, and no
// other source: nothing is looked for on the machine.
func Env(t testing.TB) {
	t.Setenv("AWS_ACCESS_KEY_ID", "test")
	t.Setenv("AWS_SECRET_ACCESS_KEY", "test-secret")
	t.Setenv("AWS_CONFIG_FILE", os.DevNull)
	t.Setenv("AWS_SHARED_CREDENTIALS_FILE", os.DevNull)
	t.Setenv("AWS_EC2_METADATA_DISABLED", "true")
}
