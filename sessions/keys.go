package sessions

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"strconv"
	"time"
)

// Errors shared by the whole package.
var (
	// ErrNotFound is returned when a record does not exist (or has expired).
	ErrNotFound = errors.New("sessions: not found")
	// ErrInvalidArgument wraps every rejection of bad input.
	ErrInvalidArgument = errors.New("sessions: invalid argument")
)

// maxPartLen bounds an identifier used verbatim in a key name; longer or
// unusual identifiers are hashed so key names stay short and unambiguous.
const maxPartLen = 200

func invalid(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrInvalidArgument, fmt.Sprintf(format, args...))
}

// keyPart turns a caller-supplied identifier into a safe key component.
// Identifiers made of common characters are kept readable; anything else
// (braces that would change a cluster hash tag, spaces, control characters,
// very long ids) is replaced by a hash.
func keyPart(s string) string {
	if len(s) <= maxPartLen && plainID(s) {
		return s
	}
	sum := sha256.Sum256([]byte(s))
	// '#' never appears in a verbatim part, so a hash cannot collide with one.
	return "#" + hex.EncodeToString(sum[:16])
}

func plainID(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9':
		case c == '.', c == '_', c == '-', c == ':', c == '/', c == '@', c == '+', c == '=':
		default:
			return false
		}
	}
	return s != ""
}

// checkID validates an identifier supplied by a caller (ids, names, keys).
func checkID(what, s string, max int) error {
	if s == "" {
		return invalid("%s is empty", what)
	}
	if len(s) > max {
		return invalid("%s is longer than %d bytes", what, max)
	}
	for i := 0; i < len(s); i++ {
		if s[i] < 0x20 || s[i] == 0x7f {
			return invalid("%s contains a control character", what)
		}
	}
	return nil
}

func checkTTL(what string, d time.Duration) error {
	if d <= 0 {
		return invalid("%s must be positive, got %s", what, d)
	}
	if d < time.Millisecond {
		return invalid("%s must be at least 1ms, got %s", what, d)
	}
	return nil
}

func randomToken() (string, error) {
	var b [16]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", fmt.Errorf("sessions: random token: %w", err)
	}
	return hex.EncodeToString(b[:]), nil
}

// ms encodes a time as Unix milliseconds for Redis; the zero time is 0.
func ms(t time.Time) int64 {
	if t.IsZero() {
		return 0
	}
	return t.UnixMilli()
}

// fromMS decodes Unix milliseconds; 0 and garbage decode to the zero time.
func fromMS(s string) time.Time {
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || n <= 0 {
		return time.Time{}
	}
	return time.UnixMilli(n).UTC()
}

func atoi(s string) int {
	n, _ := strconv.Atoi(s)
	return n
}

// truncate bounds free text (errors, reasons) stored in Redis.
func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	// Cut on a rune boundary.
	for n > 0 && n < len(s) && s[n]&0xC0 == 0x80 {
		n--
	}
	return s[:n] + "…"
}

// pairs turns a flat HGETALL-style reply from a script into a map.
func pairs(v any) (map[string]string, error) {
	list, ok := v.([]any)
	if !ok {
		return nil, fmt.Errorf("sessions: unexpected script reply %T", v)
	}
	if len(list)%2 != 0 {
		return nil, fmt.Errorf("sessions: odd-length hash reply (%d items)", len(list))
	}
	m := make(map[string]string, len(list)/2)
	for i := 0; i < len(list); i += 2 {
		k, _ := list[i].(string)
		val, _ := list[i+1].(string)
		m[k] = val
	}
	return m, nil
}
