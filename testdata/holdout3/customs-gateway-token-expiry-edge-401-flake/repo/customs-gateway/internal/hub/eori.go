package hub

import (
	"fmt"
	"regexp"
)

// EORI numbers: two-letter country code followed by up to 15 alphanumerics (GB: 12 digits).
var eoriRE = regexp.MustCompile(`^[A-Z]{2}[0-9A-Z]{1,15}$`)

func (d *Declaration) ValidateEORI() error {
	for _, p := range []Party{d.Exporter, d.Importer} {
		if p.EORI != "" && !eoriRE.MatchString(p.EORI) {
			return fmt.Errorf("invalid EORI %q for %s", p.EORI, p.Role)
		}
	}
	return nil
}
