package access

import (
	"context"
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

type groups map[string][]string

func (g groups) GroupMembers(_ context.Context, id string) ([]string, error) {
	m, ok := g[id]
	if !ok {
		return nil, errors.New("slack unavailable")
	}
	return m, nil
}

func TestParseNamesTheVariable(t *testing.T) {
	l, err := Parse("AUTOHEAL_ADMINS", "U0ALICE <!subteam^S0SRE|@sre>, w0grid")
	require.NoError(t, err)
	assert.Equal(t, List{Users: []string{"U0ALICE", "W0GRID"}, Groups: []string{"S0SRE"}}, l)
	assert.Equal(t, "<@U0ALICE>, <@W0GRID>, <!subteam^S0SRE>", l.Mentions())

	_, err = Parse("AUTOHEAL_ADMINS", "U0ALICE @bob")
	require.ErrorIs(t, err, ErrBadEntry)
	assert.Contains(t, err.Error(), `AUTOHEAL_ADMINS: invalid Slack user or user group: "@bob"`)
}

func TestAllows(t *testing.T) {
	ctx := context.Background()
	l, err := Parse("X", "U0ALICE S0SRE S0DOWN")
	require.NoError(t, err)
	g := groups{"S0SRE": {"U0BOB"}}
	for user, want := range map[string]bool{"U0ALICE": true, "u0alice": true, "U0BOB": true} {
		ok, err := l.Allows(ctx, g, user)
		require.NoError(t, err, user)
		assert.Equal(t, want, ok, user)
	}
	ok, err := l.Allows(ctx, g, "U0MALLORY")
	assert.False(t, ok)
	assert.Error(t, err, "a group that cannot be resolved fails closed")
	ok, err = l.Allows(ctx, g, "not-a-user")
	assert.False(t, ok)
	assert.NoError(t, err)
	ok, err = List{}.Allows(ctx, nil, "U0ALICE")
	assert.False(t, ok, "an empty list allows nobody")
	assert.NoError(t, err)
}
