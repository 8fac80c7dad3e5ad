package sessions

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestConnect(t *testing.T) {
	ctx := ctxT(t)
	rdb, err := Connect(ctx, testRedisURL())
	require.NoError(t, err, "start Redis or set REDIS_URL")
	require.NoError(t, rdb.Ping(ctx).Err())
	require.NoError(t, rdb.Close())

	tests := map[string]string{
		"malformed":  "redis://user:s3cretpass@[::1",
		"bad scheme": "http://user:s3cretpass@localhost:6379",
		// A closed port: the error names the address, not the password.
		"unreachable": "redis://user:s3cretpass@127.0.0.1:1/0",
	}
	for name, url := range tests {
		t.Run(name, func(t *testing.T) {
			_, err := Connect(ctx, url)
			require.Error(t, err)
			assert.NotContains(t, err.Error(), "s3cretpass")
		})
	}
	_, err = Connect(ctx, "")
	assert.ErrorIs(t, err, ErrInvalidArgument)
}
