package allocate

import (
	"fmt"
	"sort"

	allocv1 "github.com/northpeak/fulfilment/gen/go/alloc/v1"
)

// splitAcrossWarehouses fills every order line from the best-ranked sites that
// hold stock for the destination country, so an order that no single site can
// fill ships in several parcels instead of being backordered (FUL-412).
//
// Sites are visited in the order StockView.Ranked returns them (distance to the
// customer, then cost), and one ShipmentPlan is created per site that ships at
// least one unit.
func splitAcrossWarehouses(order *allocv1.Order, stock StockView) ([]*ShipmentPlan, error) {
	country := order.GetShipTo().GetCountry()
	plans := map[string]*ShipmentPlan{}
	var sites []string

	for _, line := range order.GetLines() {
		remaining := line.GetQuantity()
		for _, site := range stock.Ranked(line.GetSku(), country) {
			if remaining == 0 {
				break
			}
			take := min(remaining, site.Available)
			if take <= 0 {
				continue
			}
			p, ok := plans[site.WarehouseID]
			if !ok {
				p = &ShipmentPlan{WarehouseID: site.WarehouseID, Carrier: site.DefaultCarrier}
				plans[site.WarehouseID] = p
				sites = append(sites, site.WarehouseID)
			}
			p.Lines[line.GetSku()] += take
			remaining -= take
		}
		if remaining > 0 {
			return nil, fmt.Errorf("%w: sku %s short by %d", ErrInsufficientStock, line.GetSku(), remaining)
		}
	}

	if len(sites) > maxParcels {
		return nil, fmt.Errorf("%w: %d parcels needed, at most %d allowed", ErrTooManyParcels, len(sites), maxParcels)
	}
	sort.SliceStable(sites, func(i, j int) bool { return stock.Rank(sites[i], country) < stock.Rank(sites[j], country) })
	out := make([]*ShipmentPlan, 0, len(sites))
	for _, id := range sites {
		out = append(out, plans[id])
	}
	return out, nil
}
