package remediate

import (
	"crypto/sha256"
	"encoding/hex"
	"regexp"
	"strings"

	"github.com/autoheal/autoheal/redact"
)

// DefaultBranchPrefix starts every branch AutoHeal creates.
const DefaultBranchPrefix = "autoheal/"

// maxSlugLen bounds the slug part of a branch name.
const maxSlugLen = 60

// Slug turns an issue key into a branch-name component: lowercase letters,
// digits and dashes, at most 60 characters, stable for the same key. A key
// that loses information on the way (other characters, upper case, length)
// or looks like a secret gets a short hash of the whole key, so two keys
// never share a slug.
func Slug(issueKey string) string {
	return slugWith(issueKey, redact.Default)
}

var nonSlug = regexp.MustCompile(`[^a-z0-9]+`)

func slugWith(issueKey string, red *redact.Redactor) string {
	sum := sha256.Sum256([]byte(issueKey))
	hash := hex.EncodeToString(sum[:])[:10]
	s := nonSlug.ReplaceAllString(strings.ToLower(issueKey), "-")
	s = strings.Trim(s, "-")
	if red.String(s) != s || red.String(issueKey) != issueKey {
		return "issue-" + hash // never put anything secret-looking into a ref name
	}
	lossless := s == issueKey && len(s) <= maxSlugLen
	if lossless && s != "" {
		return s
	}
	if len(s) > maxSlugLen-11 {
		s = strings.TrimRight(s[:maxSlugLen-11], "-")
	}
	if s == "" {
		return "issue-" + hash
	}
	return s + "-" + hash
}

// BranchName is the branch AutoHeal uses for an issue key.
func BranchName(prefix, issueKey string) string {
	if prefix == "" {
		prefix = DefaultBranchPrefix
	}
	return prefix + Slug(issueKey)
}
