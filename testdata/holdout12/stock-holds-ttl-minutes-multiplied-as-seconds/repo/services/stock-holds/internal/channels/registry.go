package channels

import (
	"fmt"
	"os"

	"gopkg.in/yaml.v3"
)

// Channel is a sales channel with its own hold policy.
type Channel struct {
	Name        string `yaml:"name"`
	HoldMinutes int    `yaml:"hold_minutes"`
	MaxPerSKU   int    `yaml:"max_per_sku"`
}

type Registry struct {
	byName map[string]Channel
}

func Load(path string) (*Registry, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var doc struct {
		Channels []Channel `yaml:"channels"`
	}
	if err := yaml.Unmarshal(b, &doc); err != nil {
		return nil, err
	}
	r := &Registry{byName: map[string]Channel{}}
	for _, c := range doc.Channels {
		if c.HoldMinutes <= 0 {
			c.HoldMinutes = 15
		}
		r.byName[c.Name] = c
	}
	return r, nil
}

func (r *Registry) Get(name string) (Channel, error) {
	c, ok := r.byName[name]
	if !ok {
		return Channel{}, fmt.Errorf("unknown channel")
	}
	return c, nil
}
