package rates

import (
	"fmt"
	"regexp"
)

var usZIP = regexp.MustCompile(`^[0-9]{5}(-[0-9]{4})?$`)

// ValidateDestination rejects addresses the carriers will not quote.
func ValidateDestination(a Address) error {
	switch a.Country {
	case "US":
		if !usZIP.MatchString(a.PostalCode) {
			return fmt.Errorf("%w: postal code %q is not a US ZIP", ErrInvalidAddress, a.PostalCode)
		}
	case "CA":
		if len(a.PostalCode) < 6 {
			return fmt.Errorf("%w: postal code %q is not a Canadian postal code", ErrInvalidAddress, a.PostalCode)
		}
	}
	return nil
}
