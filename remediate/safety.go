package remediate

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/autoheal/autoheal/redact"
)

// patternsOnly masks credential-shaped text but knows no registered secret:
// comparing it with the service's redactor reveals registered secrets.
var patternsOnly = redact.New(redact.Options{})

// tokenShapes are credential formats that never belong in source code.
// (Key=value patterns are left out: code is full of `token = ...`.)
var tokenShapes = regexp.MustCompile(`xox[abposr]-[A-Za-z0-9-]{10,}|xapp-[A-Za-z0-9-]{10,}|\b(?:ghp|gho|ghu|ghs|ghr)_[A-Za-z0-9]{20,}\b|\bgithub_pat_[A-Za-z0-9_]{20,}\b|\b(?:AKIA|ASIA)[A-Z0-9]{16}\b|-----BEGIN [A-Z ]*PRIVATE KEY-----`)

// scanText is the final check before text is published: it must read the
// same after redaction, i.e. contain no registered secret and nothing
// shaped like a credential.
func (s *Service) scanText(field, text string) error {
	if s.red.String(text) != text {
		s.log.Warn("refused to publish text containing a secret", "field", field)
		return &flowError{msg: fmt.Sprintf("Refused to publish the %s: it would contain a secret. Nothing was written to GitHub.", field), err: ErrSecretInOutput}
	}
	return nil
}

// codeDelims split a line of code into the words checked on their own.
const codeDelims = " \t'\"`,;()[]{}<>:@=/\\"

// hasRegisteredSecret reports whether a line contains a secret registered
// with the service's redactor. The redactor masks registered values and
// credential shapes alike, so the line is compared with a redactor that
// knows no registered value; words are also checked on their own, because
// a registered value inside a credential shape (a URL password) is masked
// by both.
func (s *Service) hasRegisteredSecret(line string) bool {
	if s.red.String(line) != patternsOnly.String(line) {
		return true
	}
	for _, w := range strings.FieldsFunc(line, func(r rune) bool { return strings.ContainsRune(codeDelims, r) }) {
		if s.red.String(w) != patternsOnly.String(w) {
			return true
		}
	}
	return false
}

// scanFiles refuses file contents that add a registered secret or a token
// to the repository. orig holds the files' current contents (nil: every
// line counts as added).
func (s *Service) scanFiles(files []FileChange, orig map[string][]byte) error {
	for _, f := range files {
		have := map[string]bool{}
		for _, l := range strings.Split(string(orig[f.Path]), "\n") {
			have[strings.TrimSuffix(l, "\r")] = true
		}
		for _, l := range strings.Split(string(f.Content), "\n") {
			l = strings.TrimSuffix(l, "\r")
			if have[l] {
				continue
			}
			if s.hasRegisteredSecret(l) || tokenShapes.MatchString(l) {
				s.log.Warn("refused to commit content containing a secret", "file", f.Path)
				return &flowError{msg: fmt.Sprintf("Refused to commit the change to %s: it would add a secret to the repository. Nothing was written to GitHub.", s.red.String(f.Path)), err: ErrSecretInOutput}
			}
		}
	}
	return nil
}
