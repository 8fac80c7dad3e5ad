package sessions

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sort"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/autoheal/autoheal/config"
)

// Defaults for Options.
const (
	DefaultPrefix        = "autoheal"
	DefaultTTL           = 30 * 24 * time.Hour
	DefaultMaxKeys       = 64
	DefaultMaxValueBytes = 16 << 10
)

// ErrTooManyKeys is returned when a Set would grow a scope past Options.MaxKeys.
var ErrTooManyKeys = errors.New("sessions: too many settings in this scope")

// Options configures a Store.
type Options struct {
	// Prefix starts every key (default "autoheal").
	Prefix string
	// TTL of a session, refreshed on every write (default 30 days). Incident,
	// approval and result records use their own TTLs below.
	TTL time.Duration
	// EncryptionKey is the 32-byte AES-256-GCM key for secret values; nil
	// means no key, and storing a secret fails with ErrNoEncryptionKey.
	EncryptionKey []byte
	// IsSecret reports whether a setting holds a secret (default
	// config.IsSecret, so a forgotten option never stores tokens in clear).
	IsSecret func(key string) bool
	// MaxKeys bounds the settings of one scope (default 64).
	MaxKeys int
	// MaxValueBytes bounds one value (default 16 KiB).
	MaxValueBytes int

	// IncidentTTL keeps incident records after their last fire (default 30 days).
	IncidentTTL time.Duration
	// RootClaimTimeout: when an incident's creator has not recorded the root
	// message after this long, the next fire takes over posting it (default 2 min).
	RootClaimTimeout time.Duration
	// ApprovalTTL keeps approval records and their audit log (default 30 days).
	ApprovalTTL time.Duration
	// ApprovalLease is how long an "approving" state blocks other clicks
	// before another replica may resume it (default 5 min).
	ApprovalLease time.Duration
	// ResultTTL keeps idempotent-posting records (default 7 days).
	ResultTTL time.Duration
	// ResultClaimTTL bounds how long a crashed poster blocks a retry (default 2 min).
	ResultClaimTTL time.Duration
	// ParkTTL keeps parked investigations (default 24 h); MaxParked bounds
	// them per channel (default 32).
	ParkTTL   time.Duration
	MaxParked int
	// MemoryTTL keeps a past incident in the incident memory (default 90
	// days); MaxMemory bounds the incidents remembered (default 10,000, the
	// oldest forgotten first).
	MemoryTTL time.Duration
	MaxMemory int

	Logger *slog.Logger
}

func (o *Options) setDefaults() error {
	if o.Prefix == "" {
		o.Prefix = DefaultPrefix
	}
	if err := checkID("prefix", o.Prefix, 100); err != nil {
		return err
	}
	durations := []struct {
		name string
		v    *time.Duration
		def  time.Duration
	}{
		{"TTL", &o.TTL, DefaultTTL},
		{"IncidentTTL", &o.IncidentTTL, 30 * 24 * time.Hour},
		{"RootClaimTimeout", &o.RootClaimTimeout, 2 * time.Minute},
		{"ApprovalTTL", &o.ApprovalTTL, 30 * 24 * time.Hour},
		{"ApprovalLease", &o.ApprovalLease, 5 * time.Minute},
		{"ResultTTL", &o.ResultTTL, 7 * 24 * time.Hour},
		{"ResultClaimTTL", &o.ResultClaimTTL, 2 * time.Minute},
		{"ParkTTL", &o.ParkTTL, 24 * time.Hour},
		{"MemoryTTL", &o.MemoryTTL, 90 * 24 * time.Hour},
	}
	for _, d := range durations {
		if *d.v == 0 {
			*d.v = d.def
		}
		if err := checkTTL(d.name, *d.v); err != nil {
			return err
		}
	}
	ints := []struct {
		name string
		v    *int
		def  int
	}{
		{"MaxKeys", &o.MaxKeys, DefaultMaxKeys},
		{"MaxValueBytes", &o.MaxValueBytes, DefaultMaxValueBytes},
		{"MaxParked", &o.MaxParked, 32},
		{"MaxMemory", &o.MaxMemory, 10000},
	}
	for _, n := range ints {
		if *n.v == 0 {
			*n.v = n.def
		}
		if *n.v < 0 {
			return invalid("%s must be positive, got %d", n.name, *n.v)
		}
	}
	if o.IsSecret == nil {
		o.IsSecret = config.IsSecret
	}
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	return nil
}

// Store keeps sessions and the other shared records. It is safe for
// concurrent use; several Stores (replicas) may share one Redis.
type Store struct {
	rdb    redis.UniversalClient
	opts   Options
	sealer *sealer
	log    *slog.Logger
}

// New returns a Store over rdb.
func New(rdb redis.UniversalClient, opts Options) (*Store, error) {
	if rdb == nil {
		return nil, invalid("nil redis client")
	}
	if err := opts.setDefaults(); err != nil {
		return nil, err
	}
	s, err := newSealer(opts.EncryptionKey)
	if err != nil {
		return nil, err
	}
	opts.EncryptionKey = nil // the sealer holds it; do not keep a second copy around
	return &Store{rdb: rdb, opts: opts, sealer: s, log: opts.Logger.With("component", "sessions")}, nil
}

// Client returns the Redis client the Store uses.
func (s *Store) Client() redis.UniversalClient { return s.rdb }

func (s *Store) key(parts ...string) string {
	return s.opts.Prefix + ":" + strings.Join(parts, ":")
}

// Scope is where a setting lives: a thread (Channel and ThreadTS) or a
// whole channel (ThreadTS empty).
type Scope struct {
	Channel  string `json:"channel"`
	ThreadTS string `json:"thread_ts,omitempty"`
}

// ThreadScope is the scope of one thread.
func ThreadScope(channel, threadTS string) Scope { return Scope{Channel: channel, ThreadTS: threadTS} }

// ChannelScope is the scope of a channel.
func ChannelScope(channel string) Scope { return Scope{Channel: channel} }

// IsThread reports whether the scope is a thread.
func (sc Scope) IsThread() bool { return sc.ThreadTS != "" }

// ChannelOnly returns the channel scope a thread belongs to (itself for a channel).
func (sc Scope) ChannelOnly() Scope { return Scope{Channel: sc.Channel} }

func (sc Scope) String() string {
	if sc.IsThread() {
		return "thread " + sc.Channel + "/" + sc.ThreadTS
	}
	return "channel " + sc.Channel
}

// id is the stable identity used in key names and in the AAD.
func (sc Scope) id() string {
	if sc.IsThread() {
		return "thread:" + sc.Channel + ":" + sc.ThreadTS
	}
	return "channel:" + sc.Channel
}

func (sc Scope) validate() error {
	if err := checkID("channel", sc.Channel, 128); err != nil {
		return err
	}
	if strings.ContainsAny(sc.Channel, ":{} ") {
		return invalid("channel %q contains ':', '{', '}' or a space", sc.Channel)
	}
	if sc.ThreadTS != "" {
		if err := checkID("thread ts", sc.ThreadTS, 64); err != nil {
			return err
		}
		if strings.ContainsAny(sc.ThreadTS, ":{} ") {
			return invalid("thread ts %q contains ':', '{', '}' or a space", sc.ThreadTS)
		}
	}
	return nil
}

func (s *Store) sessionKey(sc Scope) string { return s.key("session", sc.id()) }

func checkSettingKey(k string) error {
	if err := checkID("setting name", k, 64); err != nil {
		return err
	}
	for i := 0; i < len(k); i++ {
		c := k[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-' || c == '.') {
			return invalid("setting name %q may only contain letters, digits, '_', '-' and '.'", k)
		}
	}
	return nil
}

// setScript merges fields into a session hash atomically, refusing the whole
// call if it would exceed the field bound. Returns 1, or 0 when too many.
var setScript = redis.NewScript(`
local new = 0
for i = 3, #ARGV, 2 do
  if redis.call('HEXISTS', KEYS[1], ARGV[i]) == 0 then new = new + 1 end
end
if redis.call('HLEN', KEYS[1]) + new > tonumber(ARGV[2]) then return 0 end
for i = 3, #ARGV, 2 do
  redis.call('HSET', KEYS[1], ARGV[i], ARGV[i + 1])
end
redis.call('PEXPIRE', KEYS[1], ARGV[1])
return 1
`)

// Set merges values into a scope. Secret values (Options.IsSecret) are
// encrypted with AES-256-GCM bound to the scope and key name. The call is
// all-or-nothing: a bad key, an oversized value, a missing encryption key or
// the scope's bound rejects it before anything is written. Errors never
// contain values.
func (s *Store) Set(ctx context.Context, scope Scope, values map[string]string) error {
	if err := scope.validate(); err != nil {
		return err
	}
	if len(values) == 0 {
		return invalid("no values to set")
	}
	if len(values) > s.opts.MaxKeys {
		return fmt.Errorf("%w: %d values, at most %d", ErrTooManyKeys, len(values), s.opts.MaxKeys)
	}
	names := make([]string, 0, len(values))
	for k := range values {
		names = append(names, k)
	}
	sort.Strings(names)
	args := []any{s.opts.TTL.Milliseconds(), s.opts.MaxKeys}
	for _, k := range names {
		v := values[k]
		if err := checkSettingKey(k); err != nil {
			return err
		}
		if v == "" {
			return invalid("%s: empty value (use Unset to remove a setting)", k)
		}
		if len(v) > s.opts.MaxValueBytes {
			return invalid("%s: value is %d bytes, at most %d", k, len(v), s.opts.MaxValueBytes)
		}
		stored := plainMark + v
		if s.opts.IsSecret(k) {
			if s.sealer == nil {
				return fmt.Errorf("%s: %w", k, ErrNoEncryptionKey)
			}
			var err error
			if stored, err = s.sealer.seal(scope, k, v); err != nil {
				return fmt.Errorf("%s: %w", k, err)
			}
		}
		args = append(args, k, stored)
	}
	ok, err := setScript.Run(ctx, s.rdb, []string{s.sessionKey(scope)}, args...).Int()
	if err != nil {
		return fmt.Errorf("sessions: set %d values in %s: %w", len(names), scope, err)
	}
	if ok == 0 {
		return fmt.Errorf("%w: %s would hold more than %d settings", ErrTooManyKeys, scope, s.opts.MaxKeys)
	}
	return nil
}

// Unset removes keys from a scope and refreshes its TTL.
func (s *Store) Unset(ctx context.Context, scope Scope, keys ...string) error {
	if err := scope.validate(); err != nil {
		return err
	}
	if len(keys) == 0 {
		return invalid("no keys to unset")
	}
	for _, k := range keys {
		if err := checkSettingKey(k); err != nil {
			return err
		}
	}
	hk := s.sessionKey(scope)
	_, err := s.rdb.TxPipelined(ctx, func(p redis.Pipeliner) error {
		p.HDel(ctx, hk, keys...)
		p.PExpire(ctx, hk, s.opts.TTL)
		return nil
	})
	if err != nil {
		return fmt.Errorf("sessions: unset %s in %s: %w", strings.Join(keys, ", "), scope, err)
	}
	return nil
}

// Get returns a scope's settings, secrets decrypted. Values that fail to
// decrypt are left out and reported by a *DecryptError (errors.Is
// ErrDecrypt) naming their keys; the other values are still returned.
func (s *Store) Get(ctx context.Context, scope Scope) (map[string]string, error) {
	if err := scope.validate(); err != nil {
		return nil, err
	}
	raw, err := s.rdb.HGetAll(ctx, s.sessionKey(scope)).Result()
	if err != nil {
		return nil, fmt.Errorf("sessions: get %s: %w", scope, err)
	}
	return s.decode(scope, raw)
}

func (s *Store) decode(scope Scope, raw map[string]string) (map[string]string, error) {
	out := make(map[string]string, len(raw))
	var derr *DecryptError
	fail := func(k, reason string) {
		if derr == nil {
			derr = &DecryptError{Scope: scope}
		}
		derr.add(k, reason)
	}
	for k, v := range raw {
		switch {
		case strings.HasPrefix(v, sealedMark):
			if s.sealer == nil {
				fail(k, "no encryption key configured (set "+EncryptionKeyEnv+")")
				continue
			}
			pt, err := s.sealer.open(scope, k, v)
			if err != nil {
				fail(k, err.Error())
				continue
			}
			out[k] = pt
		case strings.HasPrefix(v, plainMark):
			if s.opts.IsSecret(k) {
				// A secret must never be served from a clear value someone wrote directly.
				fail(k, "stored unencrypted but it is a secret")
				continue
			}
			out[k] = strings.TrimPrefix(v, plainMark)
		default:
			fail(k, "unrecognised stored format")
		}
	}
	if derr != nil {
		sort.Strings(derr.Keys)
		s.log.Warn("stored settings could not be decrypted", "scope", scope.String(), "keys", derr.Keys)
		return out, derr
	}
	return out, nil
}

// Source says where a resolved setting came from.
type Source string

const (
	SourceThread  Source = "thread"
	SourceChannel Source = "channel"
	SourceEnv     Source = "env"
)

// Setting is one resolved value.
type Setting struct {
	Value  string
	Source Source
	Secret bool
}

// String never shows a secret value.
func (st Setting) String() string {
	if st.Secret {
		return config.Mask(st.Value) + " (" + string(st.Source) + ")"
	}
	return st.Value + " (" + string(st.Source) + ")"
}

// LogValue keeps secrets out of structured logs.
func (st Setting) LogValue() slog.Value {
	v := st.Value
	if st.Secret {
		v = config.Mask(v)
	}
	return slog.GroupValue(slog.String("value", v), slog.String("source", string(st.Source)))
}

// Resolved maps setting names to their effective values.
type Resolved map[string]Setting

// LogValue keeps secrets out of structured logs.
func (r Resolved) LogValue() slog.Value {
	names := make([]string, 0, len(r))
	for k := range r {
		names = append(names, k)
	}
	sort.Strings(names)
	attrs := make([]slog.Attr, 0, len(r))
	for _, k := range names {
		attrs = append(attrs, slog.Any(k, r[k].LogValue()))
	}
	return slog.GroupValue(attrs...)
}

// Value returns a setting's value ("" when unset).
func (r Resolved) Value(key string) string { return r[key].Value }

// Source returns where a setting came from ("" when unset).
func (r Resolved) Source(key string) Source { return r[key].Source }

// Resolve merges settings with precedence thread > channel > env. env maps
// setting names (not variable names) to values from the environment; a
// threadTS of "" resolves channel and env only. A value that cannot be
// decrypted is reported (*DecryptError) and is not replaced by a lower
// scope, so a broken thread credential never silently falls back to
// another one.
//
// Endpoint groups (config.Groups) resolve as a unit, see bindGroups: a
// credential is never paired with a URL set in a more specific scope than
// the credential's, so a URL typed in a thread never receives the
// channel's or the environment's token.
func (s *Store) Resolve(ctx context.Context, channel, threadTS string, env map[string]string) (Resolved, error) {
	chScope := ChannelScope(channel)
	if err := chScope.validate(); err != nil {
		return nil, err
	}
	thScope := ThreadScope(channel, threadTS)
	if threadTS != "" {
		if err := thScope.validate(); err != nil {
			return nil, err
		}
	}
	var thCmd, chCmd *redis.MapStringStringCmd
	_, err := s.rdb.Pipelined(ctx, func(p redis.Pipeliner) error {
		if threadTS != "" {
			thCmd = p.HGetAll(ctx, s.sessionKey(thScope))
		}
		chCmd = p.HGetAll(ctx, s.sessionKey(chScope))
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("sessions: resolve %s/%s: %w", channel, threadTS, err)
	}
	var errs []error
	var layers []layer
	decode := func(sc Scope, raw map[string]string, src Source) {
		vals, err := s.decode(sc, raw)
		l := layer{src: src, vals: vals, set: map[string]bool{}}
		for k := range raw {
			l.set[k] = true // decrypt failures included: they still hide lower scopes
		}
		if err != nil {
			errs = append(errs, err)
		}
		layers = append(layers, l)
	}
	if thCmd != nil {
		decode(thScope, thCmd.Val(), SourceThread)
	}
	decode(chScope, chCmd.Val(), SourceChannel)
	envLayer := layer{src: SourceEnv, vals: map[string]string{}, set: map[string]bool{}}
	for k, v := range env {
		if v != "" {
			envLayer.vals[k], envLayer.set[k] = v, true
		}
	}
	layers = append(layers, envLayer)
	return resolveLayers(layers, s.opts.IsSecret), errors.Join(errs...)
}

// layer is one scope's settings during resolution, most specific first.
type layer struct {
	src  Source
	vals map[string]string // decrypted values
	set  map[string]bool   // keys the scope sets, even when undecryptable
}

// resolveLayers takes each key from the most specific layer that sets it,
// then binds the endpoint groups.
func resolveLayers(layers []layer, isSecret func(string) bool) Resolved {
	out := Resolved{}
	decided := map[string]bool{}
	for _, l := range layers {
		for k := range l.set {
			if decided[k] {
				continue
			}
			decided[k] = true
			if v, ok := l.vals[k]; ok {
				out[k] = Setting{Value: v, Source: l.src, Secret: isSecret(k)}
			}
		}
	}
	bindGroups(out, layers)
	return out
}

// bindGroups is the one rule that binds credentials to endpoints. For each
// group (config.Groups):
//
//   - its URL comes from the most specific scope that sets it (the
//     environment when none does: the deployment's default host);
//   - its bound settings (token, tenant) all come from one scope: the most
//     specific scope that sets any of them, provided that scope is at
//     least as specific as the URL's. Bound settings of other scopes are
//     dropped, never mixed in.
//
// So a thread's URL gets the thread's token or none, never the channel's
// or the environment's (the forbidden direction: the deployment's secret
// sent to a host a user chose). A user's own token may go to the URL the
// channel or the operator configured: the user's secret reaches the
// deployment's host, which is what the user asked for.
func bindGroups(out Resolved, layers []layer) {
	rank := func(k string) int {
		for i, l := range layers {
			if l.set[k] {
				return i
			}
		}
		return len(layers) - 1 // unset: the environment's default
	}
	for _, g := range config.Groups {
		urlRank := rank(g.URL)
		credRank := -1
	search:
		for i := 0; i <= urlRank; i++ {
			for _, k := range g.Bound {
				if layers[i].set[k] {
					credRank = i
					break search
				}
			}
		}
		for _, k := range g.Bound {
			if st, ok := out[k]; ok && (credRank < 0 || st.Source != layers[credRank].src) {
				delete(out, k)
			}
		}
	}
}

// Settings returns the resolved values with their endpoint groups bound,
// the form capabilities are built from.
func (r Resolved) Settings() config.Settings {
	values := make(map[string]string, len(r))
	for k, s := range r {
		values[k] = s.Value
	}
	var userURL, userBound []string
	for _, g := range config.Groups {
		if r[g.URL].Source.user() {
			userURL = append(userURL, g.URL)
		}
		for _, k := range g.Bound {
			if r[k].Source.user() {
				userBound = append(userBound, g.URL)
				break
			}
		}
	}
	return config.BoundSettings(values, userURL, userBound)
}

// user reports whether a source is a scope users write (thread, channel).
func (s Source) user() bool { return s == SourceThread || s == SourceChannel }
