package login

import "errors"

var ErrNoRole = errors.New("user has no role in tenant")

// Authorize lets a user in only if one of their SCIM groups maps to a role.
func (s *Service) Authorize(u User, t Tenant) (Role, error) {
	role, ok := s.roles.ForUser(t.ID, u.ID)
	if !ok {
		return "", ErrNoRole
	}
	return role, nil
}
