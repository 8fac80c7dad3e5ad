package sessions

import (
	"bytes"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestParseKey(t *testing.T) {
	// 0xfb 0xff produce '+' and '/' in standard base64 and '-' '_' in URL base64.
	key := bytes.Repeat([]byte{0xfb, 0xff, 0x01, 0x7e}, 8)
	require.Len(t, key, KeySize)

	good := map[string]string{
		"std padded":   base64.StdEncoding.EncodeToString(key),
		"std raw":      base64.RawStdEncoding.EncodeToString(key),
		"url padded":   base64.URLEncoding.EncodeToString(key),
		"url raw":      base64.RawURLEncoding.EncodeToString(key),
		"hex lower":    hex.EncodeToString(key),
		"hex upper":    strings.ToUpper(hex.EncodeToString(key)),
		"with newline": base64.StdEncoding.EncodeToString(key) + "\n",
	}
	for name, in := range good {
		t.Run(name, func(t *testing.T) {
			got, err := ParseKey(in)
			require.NoError(t, err)
			assert.Equal(t, key, got)
		})
	}

	bad := map[string]string{
		"empty":          "",
		"short base64":   base64.StdEncoding.EncodeToString(key[:16]),
		"long base64":    base64.StdEncoding.EncodeToString(append(key, 1, 2, 3)),
		"63 hex":         hex.EncodeToString(key)[:63],
		"garbage":        "not a key at all!! $$$ with spaces",
		"passphrase":     "correct horse battery staple",
		"hex wrong size": hex.EncodeToString(key[:31]),
	}
	for name, in := range bad {
		t.Run("bad "+name, func(t *testing.T) {
			_, err := ParseKey(in)
			require.Error(t, err)
			assert.ErrorIs(t, err, ErrBadKey)
			if strings.TrimSpace(in) != "" {
				assert.NotContains(t, err.Error(), strings.TrimSpace(in), "the error must not echo the key")
			}
		})
	}
}

func TestNewValidatesOptions(t *testing.T) {
	rdb := newRedis(t)
	_, err := New(rdb, Options{EncryptionKey: []byte("short")})
	assert.ErrorIs(t, err, ErrBadKey)
	_, err = New(nil, Options{})
	assert.ErrorIs(t, err, ErrInvalidArgument)
	_, err = New(rdb, Options{TTL: -time.Second})
	assert.ErrorIs(t, err, ErrInvalidArgument)
	_, err = New(rdb, Options{MaxKeys: -1})
	assert.ErrorIs(t, err, ErrInvalidArgument)
}

func TestSetGetRoundTrip(t *testing.T) {
	rdb := newRedis(t)
	ctx := ctxT(t)
	s := newStore(t, rdb, Options{Prefix: uniquePrefix(t, rdb), EncryptionKey: testKey(t)})
	scope := ThreadScope("C123", "1700000000.000100")

	values := map[string]string{
		"repo":         "acme/shop",
		"github_token": "ghp_supersecretvalue1234567890",
		"loki_token":   "glc_another-secret",
	}
	require.NoError(t, s.Set(ctx, scope, values))
	got, err := s.Get(ctx, scope)
	require.NoError(t, err)
	assert.Equal(t, values, got)

	// Merge, not replace.
	require.NoError(t, s.Set(ctx, scope, map[string]string{"ref": "v2"}))
	got, err = s.Get(ctx, scope)
	require.NoError(t, err)
	assert.Equal(t, "v2", got["ref"])
	assert.Equal(t, "acme/shop", got["repo"])

	// Unset removes only the named keys.
	require.NoError(t, s.Unset(ctx, scope, "repo", "github_token"))
	got, err = s.Get(ctx, scope)
	require.NoError(t, err)
	assert.Equal(t, map[string]string{"ref": "v2", "loki_token": "glc_another-secret"}, got)

	// Other scopes are untouched.
	other, err := s.Get(ctx, ChannelScope("C123"))
	require.NoError(t, err)
	assert.Empty(t, other)
}

func TestRawHashNeverHoldsPlaintextSecret(t *testing.T) {
	rdb := newRedis(t)
	ctx := ctxT(t)
	s := newStore(t, rdb, Options{Prefix: uniquePrefix(t, rdb), EncryptionKey: testKey(t)})
	scope := ChannelScope("C1")
	secret := "ghp_plaintext_must_not_appear_0123456789"

	require.NoError(t, s.Set(ctx, scope, map[string]string{"github_token": secret, "repo": "acme/shop"}))
	raw, err := rdb.HGetAll(ctx, s.sessionKey(scope)).Result()
	require.NoError(t, err)
	require.Contains(t, raw, "github_token")
	for field, v := range raw {
		assert.NotContains(t, v, secret, "raw field %s holds the plaintext", field)
		assert.NotContains(t, v, base64.StdEncoding.EncodeToString([]byte(secret)))
	}
	assert.True(t, strings.HasPrefix(raw["github_token"], sealedMark))
	assert.Equal(t, plainMark+"acme/shop", raw["repo"], "non-secrets stay readable")

	// A fresh nonce per write: the same secret never encrypts the same way twice.
	first := raw["github_token"]
	require.NoError(t, s.Set(ctx, scope, map[string]string{"github_token": secret}))
	second, err := rdb.HGet(ctx, s.sessionKey(scope), "github_token").Result()
	require.NoError(t, err)
	assert.NotEqual(t, first, second)
}

func TestSecretRefusedWithoutKeyAndNothingStored(t *testing.T) {
	rdb := newRedis(t)
	ctx := ctxT(t)
	s := newStore(t, rdb, Options{Prefix: uniquePrefix(t, rdb)})
	scope := ThreadScope("C1", "1.2")
	secret := "ghp_never_store_me"

	err := s.Set(ctx, scope, map[string]string{"repo": "acme/shop", "github_token": secret})
	require.ErrorIs(t, err, ErrNoEncryptionKey)
	assert.Contains(t, err.Error(), "AUTOHEAL_ENCRYPTION_KEY")
	assert.Contains(t, err.Error(), "github_token")
	assert.NotContains(t, err.Error(), secret)

	n, err := rdb.Exists(ctx, s.sessionKey(scope)).Result()
	require.NoError(t, err)
	assert.Zero(t, n, "all-or-nothing: the non-secret value must not be stored either")

	// Non-secrets alone are fine without a key.
	require.NoError(t, s.Set(ctx, scope, map[string]string{"repo": "acme/shop"}))
}

func TestWrongKeyNamesTheKeyNotTheValue(t *testing.T) {
	rdb := newRedis(t)
	ctx := ctxT(t)
	prefix := uniquePrefix(t, rdb)
	writer := newStore(t, rdb, Options{Prefix: prefix, EncryptionKey: testKey(t)})
	scope := ThreadScope("C1", "1.2")
	secret := "ghp_wrong_key_secret_value"
	require.NoError(t, writer.Set(ctx, scope, map[string]string{"github_token": secret, "repo": "acme/shop"}))

	for name, reader := range map[string]*Store{
		"other key": newStore(t, rdb, Options{Prefix: prefix, EncryptionKey: testKey(t)}),
		"no key":    newStore(t, rdb, Options{Prefix: prefix}),
	} {
		t.Run(name, func(t *testing.T) {
			got, err := reader.Get(ctx, scope)
			require.ErrorIs(t, err, ErrDecrypt)
			var derr *DecryptError
			require.ErrorAs(t, err, &derr)
			assert.Equal(t, []string{"github_token"}, derr.Keys)
			assert.Contains(t, err.Error(), "github_token")
			assert.NotContains(t, err.Error(), secret)
			assert.Equal(t, map[string]string{"repo": "acme/shop"}, got, "readable values are still returned")
		})
	}
}

func TestCiphertextBoundToScopeAndKey(t *testing.T) {
	rdb := newRedis(t)
	ctx := ctxT(t)
	s := newStore(t, rdb, Options{Prefix: uniquePrefix(t, rdb), EncryptionKey: testKey(t)})
	src := ThreadScope("C1", "1.1")
	require.NoError(t, s.Set(ctx, src, map[string]string{"github_token": "ghp_source"}))
	ct, err := rdb.HGet(ctx, s.sessionKey(src), "github_token").Result()
	require.NoError(t, err)

	tests := []struct {
		name  string
		scope Scope
		key   string
	}{
		{"other key, same scope", src, "loki_token"},
		{"same key, other thread", ThreadScope("C1", "2.2"), "github_token"},
		{"same key, channel scope", ChannelScope("C1"), "github_token"},
		{"same key, other channel", ThreadScope("C2", "1.1"), "github_token"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			require.NoError(t, rdb.HSet(ctx, s.sessionKey(tt.scope), tt.key, ct).Err())
			got, err := s.Get(ctx, tt.scope)
			require.ErrorIs(t, err, ErrDecrypt)
			assert.Contains(t, err.Error(), tt.key)
			assert.NotContains(t, got, tt.key)
		})
	}

	t.Run("tampered", func(t *testing.T) {
		b := []byte(ct)
		i := len(b) - 5
		if b[i] == 'A' {
			b[i] = 'B'
		} else {
			b[i] = 'A'
		}
		require.NoError(t, rdb.HSet(ctx, s.sessionKey(src), "github_token", string(b)).Err())
		_, err := s.Get(ctx, src)
		require.ErrorIs(t, err, ErrDecrypt)
	})

	t.Run("plaintext written where a secret belongs", func(t *testing.T) {
		sc := ThreadScope("C9", "9.9")
		require.NoError(t, rdb.HSet(ctx, s.sessionKey(sc), "github_token", plainMark+"ghp_injected").Err())
		got, err := s.Get(ctx, sc)
		require.ErrorIs(t, err, ErrDecrypt)
		assert.NotContains(t, got, "github_token")
	})
}

func TestResolvePrecedence(t *testing.T) {
	rdb := newRedis(t)
	ctx := ctxT(t)
	s := newStore(t, rdb, Options{Prefix: uniquePrefix(t, rdb), EncryptionKey: testKey(t)})
	require.NoError(t, s.Set(ctx, ChannelScope("C1"), map[string]string{
		"repo": "acme/channel", "loki_url": "https://loki.channel", "github_token": "ghp_channel",
	}))
	require.NoError(t, s.Set(ctx, ThreadScope("C1", "5.5"), map[string]string{
		"repo": "acme/thread", "github_token": "ghp_thread",
	}))
	env := map[string]string{
		"repo": "acme/env", "loki_url": "https://loki.env", "jaeger_url": "https://jaeger.env", "namespace": "",
	}

	tests := []struct {
		name     string
		threadTS string
		want     map[string]Setting
	}{
		{
			name:     "thread",
			threadTS: "5.5",
			want: map[string]Setting{
				"repo":         {Value: "acme/thread", Source: SourceThread},
				"github_token": {Value: "ghp_thread", Source: SourceThread, Secret: true},
				"loki_url":     {Value: "https://loki.channel", Source: SourceChannel},
				"jaeger_url":   {Value: "https://jaeger.env", Source: SourceEnv},
			},
		},
		{
			name:     "other thread falls back to channel",
			threadTS: "6.6",
			want: map[string]Setting{
				"repo":         {Value: "acme/channel", Source: SourceChannel},
				"github_token": {Value: "ghp_channel", Source: SourceChannel, Secret: true},
				"loki_url":     {Value: "https://loki.channel", Source: SourceChannel},
				"jaeger_url":   {Value: "https://jaeger.env", Source: SourceEnv},
			},
		},
		{
			name:     "channel only",
			threadTS: "",
			want: map[string]Setting{
				"repo":         {Value: "acme/channel", Source: SourceChannel},
				"github_token": {Value: "ghp_channel", Source: SourceChannel, Secret: true},
				"loki_url":     {Value: "https://loki.channel", Source: SourceChannel},
				"jaeger_url":   {Value: "https://jaeger.env", Source: SourceEnv},
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := s.Resolve(ctx, "C1", tt.threadTS, env)
			require.NoError(t, err)
			assert.Equal(t, Resolved(tt.want), got)
		})
	}

	t.Run("other channel uses env only", func(t *testing.T) {
		got, err := s.Resolve(ctx, "C2", "5.5", env)
		require.NoError(t, err)
		assert.Equal(t, SourceEnv, got.Source("repo"))
		assert.Equal(t, "acme/env", got.Value("repo"))
		assert.NotContains(t, got, "namespace", "empty env values are not settings")
	})
}

func TestResolveDoesNotFallBackPastBrokenSecret(t *testing.T) {
	rdb := newRedis(t)
	ctx := ctxT(t)
	prefix := uniquePrefix(t, rdb)
	old := newStore(t, rdb, Options{Prefix: prefix, EncryptionKey: testKey(t)})
	cur := newStore(t, rdb, Options{Prefix: prefix, EncryptionKey: testKey(t)})
	require.NoError(t, old.Set(ctx, ThreadScope("C1", "1.1"), map[string]string{"github_token": "ghp_old"}))
	require.NoError(t, cur.Set(ctx, ChannelScope("C1"), map[string]string{"github_token": "ghp_channel", "repo": "acme/x"}))

	got, err := cur.Resolve(ctx, "C1", "1.1", map[string]string{"github_token": "ghp_env"})
	require.ErrorIs(t, err, ErrDecrypt)
	assert.Contains(t, err.Error(), "github_token")
	assert.NotContains(t, got, "github_token", "a thread credential that cannot be read must not be replaced silently")
	assert.Equal(t, "acme/x", got.Value("repo"))
}

func TestSettingNeverPrintsSecret(t *testing.T) {
	st := Setting{Value: "ghp_abcdefghijklmnop", Source: SourceThread, Secret: true}
	assert.NotContains(t, st.String(), "ghp_abcdefghijklmnop")
	assert.NotContains(t, fmt.Sprint(st), "ghp_abcdefghijklmnop")
	assert.NotContains(t, fmt.Sprint(Resolved{"github_token": st}), "ghp_abcdefghijklmnop")

	var buf bytes.Buffer
	slog.New(slog.NewJSONHandler(&buf, nil)).Info("resolved", "token", st, "all", Resolved{"github_token": st})
	assert.NotContains(t, buf.String(), "ghp_abcdefghijklmnop")
	assert.Contains(t, buf.String(), "thread")

	plain := Setting{Value: "acme/shop", Source: SourceEnv}
	assert.Contains(t, plain.String(), "acme/shop")
}

func TestSessionTTL(t *testing.T) {
	rdb := newRedis(t)
	ctx := ctxT(t)
	s := newStore(t, rdb, Options{Prefix: uniquePrefix(t, rdb), TTL: 800 * time.Millisecond})
	scope := ChannelScope("C1")
	require.NoError(t, s.Set(ctx, scope, map[string]string{"repo": "acme/shop"}))
	ttl, err := rdb.PTTL(ctx, s.sessionKey(scope)).Result()
	require.NoError(t, err)
	assert.Greater(t, ttl, time.Duration(0))
	assert.LessOrEqual(t, ttl, 800*time.Millisecond)

	long := newStore(t, rdb, Options{Prefix: s.opts.Prefix})
	require.NoError(t, long.Unset(ctx, scope, "nothing"))
	ttl, err = rdb.PTTL(ctx, s.sessionKey(scope)).Result()
	require.NoError(t, err)
	assert.Greater(t, ttl, 24*time.Hour, "a write refreshes the TTL (default 30 days)")

	require.NoError(t, s.Set(ctx, scope, map[string]string{"ref": "main"}))
	require.Eventually(t, func() bool {
		n, err := rdb.Exists(ctx, s.sessionKey(scope)).Result()
		return err == nil && n == 0
	}, 5*time.Second, 50*time.Millisecond, "the session expires after its TTL")
	got, err := s.Get(ctx, scope)
	require.NoError(t, err)
	assert.Empty(t, got)
}

func TestSetRejectsBadInput(t *testing.T) {
	rdb := newRedis(t)
	ctx := ctxT(t)
	s := newStore(t, rdb, Options{Prefix: uniquePrefix(t, rdb), EncryptionKey: testKey(t), MaxKeys: 3, MaxValueBytes: 32})
	scope := ThreadScope("C1", "1.1")

	tests := []struct {
		name   string
		scope  Scope
		values map[string]string
		is     error
	}{
		{"empty values", scope, map[string]string{}, ErrInvalidArgument},
		{"empty value", scope, map[string]string{"repo": ""}, ErrInvalidArgument},
		{"bad key", scope, map[string]string{"re po": "acme/x"}, ErrInvalidArgument},
		{"oversized value", scope, map[string]string{"github_token": strings.Repeat("s", 33)}, ErrInvalidArgument},
		{"too many in one call", scope, map[string]string{"a": "value-a", "b": "value-b", "c": "value-c", "d": "value-d"}, ErrTooManyKeys},
		{"empty channel", Scope{}, map[string]string{"repo": "acme/x"}, ErrInvalidArgument},
		{"colon in channel", Scope{Channel: "C:1"}, map[string]string{"repo": "acme/x"}, ErrInvalidArgument},
		{"brace in ts", Scope{Channel: "C1", ThreadTS: "{1}"}, map[string]string{"repo": "acme/x"}, ErrInvalidArgument},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := s.Set(ctx, tt.scope, tt.values)
			require.ErrorIs(t, err, tt.is)
			for _, v := range tt.values {
				if v != "" {
					assert.NotContains(t, err.Error(), v)
				}
			}
		})
	}
	n, err := rdb.Exists(ctx, s.sessionKey(scope)).Result()
	require.NoError(t, err)
	assert.Zero(t, n, "no rejected call stored anything")

	// The bound counts what is already stored.
	require.NoError(t, s.Set(ctx, scope, map[string]string{"a": "1", "b": "2"}))
	require.ErrorIs(t, s.Set(ctx, scope, map[string]string{"c": "3", "d": "4"}), ErrTooManyKeys)
	require.NoError(t, s.Set(ctx, scope, map[string]string{"a": "overwrite", "c": "3"}), "overwriting does not grow the scope")
	got, err := s.Get(ctx, scope)
	require.NoError(t, err)
	assert.Equal(t, map[string]string{"a": "overwrite", "b": "2", "c": "3"}, got)
}

func TestDecryptErrorIsMatchable(t *testing.T) {
	err := fmt.Errorf("wrapped: %w", &DecryptError{Scope: ChannelScope("C1"), Keys: []string{"k"}})
	assert.True(t, errors.Is(err, ErrDecrypt))
}
