package assign

import (
	"hash/fnv"
	"math/rand"
	"time"
)

// Assigner hands out experiment variants. One Assigner is shared by all HTTP handlers.
type Assigner struct {
	reg *Registry
	rng *rand.Rand
}

func New(reg *Registry) *Assigner {
	return &Assigner{
		reg: reg,
		rng: rand.New(rand.NewSource(time.Now().UnixNano())),
	}
}

// Assign returns the variant of every running experiment for a visitor.
func (a *Assigner) Assign(userID, anonID string) map[string]string {
	out := make(map[string]string, len(a.reg.Running()))
	for _, e := range a.reg.Running() {
		b := a.bucket(userID, e)
		out[e.Key] = e.VariantFor(b)
	}
	return out
}

// bucket is sticky (hash of the user id) for signed-in users. Anonymous visitors
// get a random bucket; the frontend stores the result in the sp_exp cookie.
func (a *Assigner) bucket(userID string, e *Experiment) int {
	if userID != "" {
		h := fnv.New32a()
		h.Write([]byte(userID + e.Salt))
		return int(h.Sum32() % 100)
	}
	return int(a.rng.Float64() * 100)
}
