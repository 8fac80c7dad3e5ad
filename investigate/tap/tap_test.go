package tap

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
)

type nop struct{}

func (nop) HTTP(HTTP) {}
func (nop) Tool(Tool) {}

func TestFromFindsTheRecorderOfDerivedContexts(t *testing.T) {
	assert.Nil(t, From(context.Background()))
	ctx, cancel := context.WithCancel(With(context.Background(), nop{}))
	defer cancel()
	assert.Equal(t, nop{}, From(ctx))
}
