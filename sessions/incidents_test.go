package sessions

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestOpenOrFireConcurrentReplicas(t *testing.T) {
	ctx := ctxT(t)
	rdbA, rdbB := newRedis(t), newRedis(t)
	prefix := uniquePrefix(t, rdbA)
	replicas := []*Store{newStore(t, rdbA, Options{Prefix: prefix}), newStore(t, rdbB, Options{Prefix: prefix})}
	now := time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)

	var created, investigate atomic.Int32
	var wg sync.WaitGroup
	for i := 0; i < 50; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			// Fires within the same second, as several replicas would see them.
			at := now.Add(time.Duration(i) * time.Millisecond)
			_, c, inv, err := replicas[i%2].OpenOrFire(ctx, "alert:HighErrorRate:checkout", at, 10*time.Minute)
			if !assert.NoError(t, err) {
				return
			}
			if c {
				created.Add(1)
			}
			if inv {
				investigate.Add(1)
			}
		}(i)
	}
	wg.Wait()
	assert.Equal(t, int32(1), created.Load(), "exactly one record is created")
	assert.Equal(t, int32(1), investigate.Load(), "exactly one caller investigates within the cooldown")

	inc, err := replicas[0].GetIncident(ctx, "alert:HighErrorRate:checkout")
	require.NoError(t, err)
	assert.Equal(t, 50, inc.FireCount)
	assert.Equal(t, IncidentFiring, inc.Status)
	assert.Equal(t, "alert:HighErrorRate:checkout", inc.Key)
	assert.False(t, inc.FirstFiredAt.Before(now))
	assert.Equal(t, now.Add(49*time.Millisecond), inc.LastFiredAt, "last fire is the latest, whatever the arrival order")
}

func TestOpenOrFireCooldownAndResolve(t *testing.T) {
	rdb := newRedis(t)
	ctx := ctxT(t)
	s := newStore(t, rdb, Options{Prefix: uniquePrefix(t, rdb)})
	t0 := time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)
	const cooldown = 10 * time.Minute
	key := "K1"

	steps := []struct {
		name            string
		do              func() (Incident, bool, bool, error)
		created, invest bool
		status          IncidentStatus
		fires           int
	}{
		{"first fire", func() (Incident, bool, bool, error) { return s.OpenOrFire(ctx, key, t0, cooldown) }, true, true, IncidentFiring, 1},
		{"root posted", func() (Incident, bool, bool, error) {
			inc, err := s.SetRootTS(ctx, key, "C1", "1700.0001")
			return inc, false, false, err
		}, false, false, IncidentFiring, 1},
		{"within cooldown", func() (Incident, bool, bool, error) { return s.OpenOrFire(ctx, key, t0.Add(5*time.Minute), cooldown) }, false, false, IncidentFiring, 2},
		{"after cooldown", func() (Incident, bool, bool, error) { return s.OpenOrFire(ctx, key, t0.Add(10*time.Minute), cooldown) }, false, true, IncidentFiring, 3},
		{"cooldown restarts", func() (Incident, bool, bool, error) { return s.OpenOrFire(ctx, key, t0.Add(15*time.Minute), cooldown) }, false, false, IncidentFiring, 4},
		{"resolved", func() (Incident, bool, bool, error) {
			inc, err := s.ResolveIncident(ctx, key, t0.Add(16*time.Minute))
			return inc, false, false, err
		}, false, false, IncidentResolved, 4},
		{"re-fire reopens, cooldown still applies", func() (Incident, bool, bool, error) {
			return s.OpenOrFire(ctx, key, t0.Add(17*time.Minute), cooldown)
		}, false, false, IncidentFiring, 5},
		{"manual re-investigation", func() (Incident, bool, bool, error) {
			inc, err := s.MarkInvestigated(ctx, key, t0.Add(25*time.Minute))
			return inc, false, false, err
		}, false, false, IncidentFiring, 5},
		{"cooldown counts from the manual run", func() (Incident, bool, bool, error) {
			return s.OpenOrFire(ctx, key, t0.Add(30*time.Minute), cooldown)
		}, false, false, IncidentFiring, 6},
		{"and ends after it", func() (Incident, bool, bool, error) {
			return s.OpenOrFire(ctx, key, t0.Add(35*time.Minute), cooldown)
		}, false, true, IncidentFiring, 7},
	}
	for _, st := range steps {
		inc, created, invest, err := st.do()
		require.NoError(t, err, st.name)
		assert.Equal(t, st.created, created, "%s: created", st.name)
		assert.Equal(t, st.invest, invest, "%s: investigate", st.name)
		assert.Equal(t, st.status, inc.Status, "%s: status", st.name)
		assert.Equal(t, st.fires, inc.FireCount, "%s: fire count", st.name)
		if st.status == IncidentResolved {
			assert.Equal(t, t0.Add(16*time.Minute), inc.ResolvedAt)
		} else {
			assert.True(t, inc.ResolvedAt.IsZero(), "%s: resolved_at cleared", st.name)
		}
	}
	inc, err := s.GetIncident(ctx, key)
	require.NoError(t, err)
	assert.Equal(t, t0.Add(35*time.Minute), inc.LastInvestigatedAt)
	assert.Equal(t, t0, inc.FirstFiredAt)
}

func TestIncidentRootMessage(t *testing.T) {
	rdb := newRedis(t)
	ctx := ctxT(t)
	prefix := uniquePrefix(t, rdb)
	creator := newStore(t, rdb, Options{Prefix: prefix})
	other := newStore(t, newRedis(t), Options{Prefix: prefix})
	now := time.Now()

	_, created, _, err := creator.OpenOrFire(ctx, "K2", now, time.Minute)
	require.NoError(t, err)
	require.True(t, created)

	// The replica that lost the race waits for the root while the creator posts.
	waited := make(chan Incident, 1)
	go func() {
		wctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		defer cancel()
		inc, err := other.WaitRootTS(wctx, "K2", 10*time.Millisecond)
		assert.NoError(t, err)
		waited <- inc
	}()
	inc, err := creator.SetRootTS(ctx, "K2", "C1", "1700.0002")
	require.NoError(t, err)
	assert.Equal(t, "1700.0002", inc.RootTS)
	got := <-waited
	assert.Equal(t, "C1", got.Channel)
	assert.Equal(t, "1700.0002", got.RootTS)

	key, err := other.IncidentForThread(ctx, "C1", "1700.0002")
	require.NoError(t, err)
	assert.Equal(t, "K2", key)
	_, err = other.IncidentForThread(ctx, "C1", "9.9")
	assert.ErrorIs(t, err, ErrNotFound)

	// Same root again is fine; a different one is refused.
	_, err = creator.SetRootTS(ctx, "K2", "C1", "1700.0002")
	require.NoError(t, err)
	inc, err = other.SetRootTS(ctx, "K2", "C1", "1700.0003")
	require.ErrorIs(t, err, ErrRootTaken)
	assert.Equal(t, "1700.0002", inc.RootTS)

	_, err = creator.SetRootTS(ctx, "missing", "C1", "1.1")
	assert.ErrorIs(t, err, ErrNotFound)
	_, err = creator.ResolveIncident(ctx, "missing", now)
	assert.ErrorIs(t, err, ErrNotFound)
	_, err = creator.GetIncident(ctx, "missing")
	assert.ErrorIs(t, err, ErrNotFound)

	// A bounded wait on an incident nobody creates gives up with ctx.
	wctx, cancel := context.WithTimeout(ctx, 100*time.Millisecond)
	defer cancel()
	_, err = other.WaitRootTS(wctx, "never", 10*time.Millisecond)
	assert.ErrorIs(t, err, context.DeadlineExceeded)
}

func TestIncidentRootTakeoverAfterCreatorCrash(t *testing.T) {
	rdb := newRedis(t)
	ctx := ctxT(t)
	s := newStore(t, rdb, Options{Prefix: uniquePrefix(t, rdb), RootClaimTimeout: time.Minute})
	t0 := time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)

	_, created, _, err := s.OpenOrFire(ctx, "K3", t0, time.Hour)
	require.NoError(t, err)
	require.True(t, created)
	// The creator dies before posting the root.
	_, created, _, err = s.OpenOrFire(ctx, "K3", t0.Add(30*time.Second), time.Hour)
	require.NoError(t, err)
	assert.False(t, created, "the creator still has time")
	_, created, _, err = s.OpenOrFire(ctx, "K3", t0.Add(61*time.Second), time.Hour)
	require.NoError(t, err)
	assert.True(t, created, "a later fire takes over posting the root")
	_, created, _, err = s.OpenOrFire(ctx, "K3", t0.Add(62*time.Second), time.Hour)
	require.NoError(t, err)
	assert.False(t, created, "only one takes over")

	_, err = s.SetRootTS(ctx, "K3", "C1", "1.5")
	require.NoError(t, err)
	_, created, _, err = s.OpenOrFire(ctx, "K3", t0.Add(10*time.Minute), time.Hour)
	require.NoError(t, err)
	assert.False(t, created, "never once the root is recorded")
}

func TestIncidentTTL(t *testing.T) {
	rdb := newRedis(t)
	ctx := ctxT(t)
	s := newStore(t, rdb, Options{Prefix: uniquePrefix(t, rdb), IncidentTTL: time.Hour})
	_, _, _, err := s.OpenOrFire(ctx, "K4", time.Now(), time.Minute)
	require.NoError(t, err)
	ttl, err := rdb.PTTL(ctx, s.incidentKey("K4")).Result()
	require.NoError(t, err)
	assert.Greater(t, ttl, 59*time.Minute)
	assert.LessOrEqual(t, ttl, time.Hour)
}
