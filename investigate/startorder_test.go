package investigate

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestStartOrderPlacesTheOwnerListedAfterTheEndpoint(t *testing.T) {
	stack := "** (ArgumentError) errors were found at the given arguments:\n\n  * 1st argument: the table identifier does not refer to an existing ETS table\n\n" +
		"    (stdlib 6.0) :ets.lookup(:prices, {\"A\", \"B\"})\n" +
		"    (shop 1.2.0) lib/shop/price_cache.ex:9: Shop.PriceCache.lookup/2\n" +
		"    (shop 1.2.0) lib/shop_web/controllers/price_controller.ex:21: ShopWeb.PriceController.show/2\n"
	frames := ParseStack(stack)
	anchor, ok := TopAppFrame(frames)
	require.True(t, ok)
	c := &candidate{Service: "shop", Support: []Finding{{Quote: stack}}}
	app, module, ok := startOrderOwner(c, &anchor)
	require.True(t, ok)
	assert.Equal(t, "shop", app)
	assert.Equal(t, "Shop.PriceCache", module)
	assert.Equal(t, "lib/shop/application.ex", applicationFile(app))

	late := []string{
		"     6    def start(_type, _args) do",
		"     7      children = [",
		"     8        Shop.Repo,",
		"     9        ShopWeb.Endpoint,",
		"    10        Shop.PriceCache",
		"    11      ]",
	}
	ev := &evidence{findings: []Finding{{Kind: KindSourceAnchor, File: "apps/shop/lib/shop/application.ex", Line: 1, Attrs: map[string]string{"window": joinLines(late)}}}}
	f, n, ok := ev.startOrderLine(c, &anchor)
	require.True(t, ok)
	assert.Equal(t, "apps/shop/lib/shop/application.ex", f)
	assert.Equal(t, 10, n)

	early := []string{
		"     7      children = [",
		"     8        Shop.Repo,",
		"     9        Shop.PriceCache,",
		"    10        ShopWeb.Endpoint",
		"    11      ]",
	}
	_, ok = childOrderLine(early, "Shop.PriceCache")
	assert.False(t, ok, "started before anything serves requests: the order is not the defect")

	other := &candidate{Service: "shop", Support: []Finding{{Quote: "** (ArgumentError) argument error\n    (shop 1.2.0) lib/shop/price_cache.ex:9: Shop.PriceCache.lookup/2"}}}
	_, _, ok = startOrderOwner(other, &anchor)
	assert.False(t, ok, "only a missing table or process points at the start order")
}

func joinLines(ls []string) string {
	out := ""
	for _, l := range ls {
		out += l + "\n"
	}
	return out
}

func TestReplicaReadChangeBehindIntermittentNotFound(t *testing.T) {
	onset := time.Date(2026, 7, 8, 9, 0, 0, 0, time.UTC)
	const file = "internal/documents/store.go"
	ev := &evidence{onset: onset, findings: []Finding{{Kind: KindChangeCorrelation, File: file, Time: onset.Add(-5 * 24 * time.Hour), Attrs: map[string]string{
		"added":   "25:	err := s.db.Replica().QueryRowContext(ctx,\n35:	return s.list(ctx, s.db.Replica(), ws, limit)",
		"removed": "25:	err := s.db.Primary().QueryRowContext(ctx,\n35:	return s.list(ctx, s.db.Primary(), ws, limit)",
		"context": "24:	var d Document\n26:		`SELECT id FROM documents WHERE id = $1`,\n28:	if errors.Is(err, sql.ErrNoRows) {\n34:func (s *Store) ListByWorkspace(ctx context.Context, ws string, limit int) ([]Document, error) {"}}}}
	c := &candidate{Service: "docs-api", Signature: "record-not-found", Support: []Finding{{Quote: "document not found", Signature: "record-not-found"}}}
	l, ok := ev.replicaReadChange(c)
	require.True(t, ok)
	assert.Equal(t, 25, l.line, "the moved read whose hunk turns a missing row into not found")

	other := &candidate{Service: "docs-api", Signature: "conn-refused", Support: []Finding{{Quote: "dial tcp: connection refused", Signature: "conn-refused"}}}
	_, ok = ev.replicaReadChange(other)
	assert.False(t, ok, "only a record that is not found")
}
