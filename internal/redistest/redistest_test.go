package redistest

import (
	"context"
	"strings"
	"testing"
)

func TestPrefixKeysAreDeletedAfterTheTest(t *testing.T) {
	rdb := Client(t)
	ctx := context.Background()
	var prefix string
	t.Run("writer", func(t *testing.T) {
		prefix = Prefix(t, rdb, "autoheal-redistest-")
		if !strings.HasPrefix(prefix, "autoheal-redistest-") || len(prefix) != len("autoheal-redistest-")+12 {
			t.Fatalf("prefix %q", prefix)
		}
		if err := rdb.Set(ctx, prefix+":k", "v", 0).Err(); err != nil {
			t.Fatal(err)
		}
	})
	n, err := rdb.Exists(ctx, prefix+":k").Result()
	if err != nil || n != 0 {
		t.Fatalf("key left behind: %d %v", n, err)
	}
}
