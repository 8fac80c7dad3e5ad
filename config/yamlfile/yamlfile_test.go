package yamlfile

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gopkg.in/yaml.v3"
)

func TestRoot(t *testing.T) {
	root, err := Root("c.yaml", nil, "routing:, …")
	assert.NoError(t, err)
	assert.Nil(t, root, "an empty file has no sections")

	_, err = Root("c.yaml", []byte("- a\n- b\n"), "routing:, …")
	assert.EqualError(t, err, "c.yaml:1: the config file must be a mapping of sections (routing:, …)")

	_, err = Root("c.yaml", []byte("a: [\n"), "routing:, …")
	var e *Error
	require.ErrorAs(t, err, &e)
	assert.Equal(t, "c.yaml", e.File)
}

func TestFieldsReportsEveryProblemWithItsLine(t *testing.T) {
	root, err := Root("c.yaml", []byte("routing:\n  channel: C1\n  chanel: C2\n  channel: C3\n  list: x\n"), "routing:")
	require.NoError(t, err)
	p := &Parser{File: "c.yaml"}
	var channel string
	p.Fields(root.Content[1], "routing", map[string]func(k, v *yaml.Node, path string){
		"channel": func(_, v *yaml.Node, path string) { channel, _ = p.Scalar(v, path) },
		"list":    func(_, v *yaml.Node, path string) { p.List(v, path) },
	})
	assert.Equal(t, "C1", channel, "the first definition is kept")
	assert.Equal(t, 3, p.Count())
	assert.EqualError(t, p.Err(), "c.yaml:3: routing.chanel: unknown key \"chanel\" (known: channel, list)\n"+
		"c.yaml:4: routing.channel: defined twice\n"+
		"c.yaml:5: routing.list: must be a list")
	assert.NoError(t, (&Parser{}).Err())
}
