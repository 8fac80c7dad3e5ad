package build

import "strings"

// Excel in de-DE/fr-FR splits on semicolons; advertisers asked for quoting there too.
func csvField(s string) string {
	if strings.ContainsAny(s, ",;\"\n") {
		return `"` + strings.ReplaceAll(s, `"`, `""`) + `"`
	}
	return s
}
