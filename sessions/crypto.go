package sessions

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
)

// KeySize is the length of the AES-256 session encryption key.
const KeySize = 32

// EncryptionKeyEnv names the environment variable operators set the key in.
const EncryptionKeyEnv = "AUTOHEAL_ENCRYPTION_KEY"

var (
	// ErrNoEncryptionKey is returned when a secret is stored but no key is
	// configured. Nothing of the call is stored.
	ErrNoEncryptionKey = errors.New("sessions: cannot store a secret without an encryption key: set " +
		EncryptionKeyEnv + " to 32 random bytes (base64 or 64 hex characters), e.g. `openssl rand -base64 32`")
	// ErrDecrypt reports a stored secret that cannot be decrypted (wrong key,
	// tampered or moved value). Use errors.As with *DecryptError for the keys.
	ErrDecrypt = errors.New("sessions: cannot decrypt stored secret")
	// ErrBadKey reports an encryption key in the wrong format.
	ErrBadKey = errors.New("sessions: encryption key must be 32 bytes given as base64 (standard or URL alphabet, padded or not) or as 64 hex characters")
)

// ParseKey decodes an encryption key given as base64 (standard or URL
// alphabet, padded or not) or as 64 hex characters. The error never echoes
// the input.
func ParseKey(s string) ([]byte, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return nil, fmt.Errorf("%w (got an empty value)", ErrBadKey)
	}
	if len(s) == 2*KeySize {
		if b, err := hex.DecodeString(s); err == nil {
			return b, nil
		}
	}
	for _, enc := range []*base64.Encoding{
		base64.StdEncoding, base64.RawStdEncoding, base64.URLEncoding, base64.RawURLEncoding,
	} {
		b, err := enc.DecodeString(s)
		if err != nil {
			continue
		}
		if len(b) == KeySize {
			return b, nil
		}
		return nil, fmt.Errorf("%w (got %d bytes after base64 decoding)", ErrBadKey, len(b))
	}
	return nil, fmt.Errorf("%w (got %d characters that are neither)", ErrBadKey, len(s))
}

// Stored values carry a marker so a reader never guesses: plain values and
// version-1 AES-GCM ciphertexts.
const (
	plainMark  = "p:"
	sealedMark = "e1:"
	aadLabel   = "autoheal/sessions/v1"
)

type sealer struct{ aead cipher.AEAD }

func newSealer(key []byte) (*sealer, error) {
	if key == nil {
		return nil, nil
	}
	if len(key) != KeySize {
		return nil, fmt.Errorf("%w (got %d bytes)", ErrBadKey, len(key))
	}
	block, err := aes.NewCipher(key)
	if err != nil {
		return nil, fmt.Errorf("sessions: aes: %w", err)
	}
	aead, err := cipher.NewGCM(block)
	if err != nil {
		return nil, fmt.Errorf("sessions: gcm: %w", err)
	}
	return &sealer{aead: aead}, nil
}

// aad binds a ciphertext to its scope and key name, so a value copied to
// another key or another thread fails authentication.
func aad(scope Scope, key string) []byte {
	return []byte(aadLabel + "\x00" + scope.id() + "\x00" + key)
}

func (s *sealer) seal(scope Scope, key, plaintext string) (string, error) {
	nonce := make([]byte, s.aead.NonceSize(), s.aead.NonceSize()+len(plaintext)+s.aead.Overhead())
	if _, err := rand.Read(nonce); err != nil {
		return "", fmt.Errorf("sessions: nonce: %w", err)
	}
	out := s.aead.Seal(nonce, nonce, []byte(plaintext), aad(scope, key))
	return sealedMark + base64.RawStdEncoding.EncodeToString(out), nil
}

func (s *sealer) open(scope Scope, key, stored string) (string, error) {
	raw, err := base64.RawStdEncoding.DecodeString(strings.TrimPrefix(stored, sealedMark))
	if err != nil {
		return "", errors.New("malformed ciphertext")
	}
	ns := s.aead.NonceSize()
	if len(raw) < ns+s.aead.Overhead() {
		return "", errors.New("truncated ciphertext")
	}
	pt, err := s.aead.Open(nil, raw[:ns], raw[ns:], aad(scope, key))
	if err != nil {
		return "", errors.New("authentication failed (wrong key, or the value was altered or moved)")
	}
	return string(pt), nil
}

// DecryptError names the keys of a scope whose stored values could not be
// decrypted. It never contains the values.
type DecryptError struct {
	Scope  Scope
	Keys   []string
	Reason map[string]string // per key: why (no key configured, authentication failed ...)
}

func (e *DecryptError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "sessions: cannot decrypt %s in %s", strings.Join(e.Keys, ", "), e.Scope)
	for _, k := range e.Keys {
		if r := e.Reason[k]; r != "" {
			fmt.Fprintf(&b, "; %s: %s", k, r)
		}
	}
	b.WriteString("; set the value again")
	return b.String()
}

// Is makes errors.Is(err, ErrDecrypt) true.
func (e *DecryptError) Is(target error) bool { return target == ErrDecrypt }

func (e *DecryptError) add(key, reason string) {
	e.Keys = append(e.Keys, key)
	if e.Reason == nil {
		e.Reason = map[string]string{}
	}
	e.Reason[key] = reason
}
