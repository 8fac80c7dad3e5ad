package investigate

import (
	"path"
	"regexp"
	"strings"
)

// A failure often names a setting in prose: "canceling statement due to
// statement timeout" is the server enforcing statement_timeout, "lock wait
// timeout exceeded" is lock_wait_timeout. A changed line holding that
// identifier (snake, kebab or camel case) is named by the failure as much
// as a quoted key would be, whatever words of it the service's own name
// also uses.

var phraseWordRE = regexp.MustCompile(`[A-Za-z][A-Za-z0-9]*`)

// identRE: identifiers of at least two parts (statement_timeout,
// max-connections, lockTimeout).
var identRE = regexp.MustCompile(`\b[A-Za-z][A-Za-z0-9]*(?:[_-][A-Za-z0-9]+)+\b|\b[a-z]+(?:[A-Z][a-z0-9]+)+\b`)

// settingAfterNameRE: what follows a setting's name on its line: = or : and a value.
var settingAfterNameRE = regexp.MustCompile(`^["']?\s*[:=]\s*["']?[^\s"'{}\[\]#]`)

var camelBreakRE = regexp.MustCompile(`([a-z0-9])([A-Z])`)

// identParts splits an identifier into its lower-cased words.
func identParts(id string) []string {
	id = camelBreakRE.ReplaceAllString(id, "${1}_${2}")
	return strings.FieldsFunc(strings.ToLower(id), func(r rune) bool { return r == '_' || r == '-' })
}

// phraseText is the failure's prose as lower-cased words separated by one
// space, with a space at both ends, so that a phrase is a substring match.
func phraseText(text string) string {
	ws := phraseWordRE.FindAllString(text, -1)
	return " " + strings.ToLower(strings.Join(ws, " ")) + " "
}

// phraseNamedSettings returns the identifiers of line the failure's prose
// spells out word by word: at least two parts, one of them not a word
// every setting shares (timeout, max, size).
func phraseNamedSettings(line, prose string) []string {
	var out []string
	for _, loc := range identRE.FindAllStringIndex(line, 20) {
		id := line[loc[0]:loc[1]]
		// A setting with its value (statement_timeout=5s, lockTimeout: 2s),
		// not a section header (livenessProbe:) the prose also names.
		if !settingAfterNameRE.MatchString(line[loc[1]:]) {
			continue
		}
		if loc[0] > 0 && strings.ContainsRune("/.@:", rune(line[loc[0]-1])) {
			continue // part of a path, host or image reference (repo/name:tag)
		}
		parts := identParts(id)
		if len(parts) < 2 || len(parts) > 5 {
			continue
		}
		specific := false
		for _, p := range parts {
			if len(p) >= 4 && !timeoutWords[p] && !changeStopWords[p] && !genericSettingWord[p] {
				specific = true
			}
		}
		if specific && strings.Contains(prose, " "+strings.Join(parts, " ")+" ") {
			out = append(out, id)
		}
	}
	return out
}

// genericSettingWord: parts that say what kind of setting, not which.
var genericSettingWord = map[string]bool{"max": true, "min": true, "size": true, "count": true, "enabled": true, "enable": true, "seconds": true, "millis": true, "interval": true}

// phraseBigrams are a failure's adjacent word pairs joined as identifiers
// ("statement timeout" -> statement_timeout, statementtimeout): the words
// a setting's name is made of, compared with a change's identifiers.
func phraseBigrams(text string) []string {
	ws := phraseWordRE.FindAllString(strings.ToLower(text), 2000)
	var out []string
	for i := 0; i+1 < len(ws); i++ {
		a, b := ws[i], ws[i+1]
		if len(a) < 3 || len(b) < 3 || a == b {
			continue
		}
		out = append(out, a+"_"+b, a+"-"+b, a+b)
	}
	return out
}

// serviceManifestFile: the file was located as one of the service's
// deployment manifests (its chart's values, its Deployment), or sits in
// the same chart directory as one.
func (ev *evidence) serviceManifestFile(file, service string) bool {
	chartOf := func(p string) string {
		d := path.Dir(p)
		if path.Base(d) == "templates" {
			d = path.Dir(d)
		}
		return d
	}
	for _, f := range ev.findings {
		if f.Kind != KindManifest || f.File == "" || NormalizeServiceName(f.Service) != NormalizeServiceName(service) {
			continue
		}
		if samePath(f.File, file) {
			return true
		}
		// The values file of the Helm chart whose templates deploy it.
		if path.Base(path.Dir(f.File)) == "templates" && strings.HasPrefix(path.Base(file), "values") && path.Dir(file) == chartOf(f.File) {
			return true
		}
	}
	return false
}

// yamlKeyRE: the key of a YAML mapping row.
var yamlKeyRE = regexp.MustCompile(`^\s*-?\s*["']?([A-Za-z0-9_.-]+)["']?\s*:`)

// mentionsOtherService: the changed line or the diff rows around it open
// a section keyed by a known service other than svc (a block of a shared
// values file that configures someone else). A service merely mentioned
// (the database every client talks to) configures nothing.
func (ev *evidence) mentionsOtherService(l changeLine, svc string) bool {
	own := NormalizeServiceName(svc)
	rows := []numberedLine{{n: l.line, text: l.text}}
	for _, attr := range []string{"context", "added"} {
		for _, row := range diffRows(l.change.Attrs[attr]) {
			if abs(row.n-l.line) <= 6 {
				rows = append(rows, row)
			}
		}
	}
	for _, row := range rows {
		m := yamlKeyRE.FindStringSubmatch(row.text)
		if m == nil {
			continue
		}
		key := NormalizeServiceName(m[1])
		for _, k := range ev.known {
			if n := NormalizeServiceName(k); n != "" && n != own && n == key {
				return true
			}
		}
	}
	return false
}
